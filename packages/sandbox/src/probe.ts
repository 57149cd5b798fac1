/**
 * Whether bubblewrap can run here: found on the PATH, and able to create the
 * namespaces the sandbox uses. Probed once per bwrap binary and process; the answer is
 * a path or the error that names the cause and the fix.
 */
import { SandboxUnavailableError } from "./errors.ts";

const probes = new Map<string, Promise<SandboxUnavailableError | undefined>>();

// Messages bubblewrap prints when the kernel refuses a namespace.
const NAMESPACE_REFUSED =
  /namespace|uid map|setting up uid|Operation not permitted|Permission denied|No space left|ENOSPC|EPERM/i;

async function probe(bwrap: string): Promise<SandboxUnavailableError | undefined> {
  const child = Bun.spawn(
    [
      bwrap,
      "--unshare-user",
      "--unshare-pid",
      "--ro-bind",
      "/",
      "/",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "true",
    ],
    { stdin: "ignore", stdout: "ignore", stderr: "pipe", env: { PATH: "/usr/bin:/bin" } },
  );
  const stderr = (await new Response(child.stderr).text()).trim();
  const code = await child.exited;
  if (code === 0) return undefined;
  return NAMESPACE_REFUSED.test(stderr)
    ? new SandboxUnavailableError("userNamespaces", `bubblewrap could not create its namespaces: ${stderr}.`)
    : new SandboxUnavailableError(
        "startFailed",
        `bubblewrap failed its start check (exit ${code}): ${stderr}.`,
      );
}

/** The bwrap executable on `PATH`, checked to work; throws {@link SandboxUnavailableError}. */
export async function requireBubblewrap(PATH: string): Promise<string> {
  const bwrap = Bun.which("bwrap", { PATH });
  if (!bwrap) throw new SandboxUnavailableError("bwrapMissing", "bwrap was not found on the PATH.");
  let result = probes.get(bwrap);
  if (!result) {
    result = probe(bwrap);
    probes.set(bwrap, result);
  }
  const failure = await result;
  if (failure) throw failure;
  return bwrap;
}
