/** Why a sandbox that was asked for cannot run, each with the fix a user can apply. */

/** The causes a sandbox refuses for. */
export type SandboxFailure = "bwrapMissing" | "userNamespaces" | "unsafeMounts" | "startFailed";

const FIXES: Record<SandboxFailure, string> = {
  bwrapMissing:
    "Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) and make sure bwrap is on the server's PATH.",
  userNamespaces:
    "Enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0; on Ubuntu also kernel.apparmor_restrict_unprivileged_userns=0), or run KnightCode in a container (docs/containerization.md).",
  unsafeMounts:
    "A path shown inside must not contain /tmp, the agent dir or a session dir: check the thread's cwd and sandbox.extraReadable / sandbox.extraWritable in the global settings.",
  startFailed:
    "See the message above; run KnightCode without --sandbox only if you accept tools running on the host.",
};

/**
 * The sandbox was asked for and cannot run. Tools fail with it instead of running on
 * the host: the sandbox fails closed.
 */
export class SandboxUnavailableError extends Error {
  constructor(
    readonly failure: SandboxFailure,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`Sandbox unavailable (${failure}): ${detail} ${FIXES[failure]}`, options);
    this.name = "SandboxUnavailableError";
  }
}
