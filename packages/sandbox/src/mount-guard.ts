/**
 * The last check before bubblewrap runs: no mount may undo a private one. A bind of `/`
 * (or of any folder holding `/tmp`, a home, the agent dir or a session dir) placed after
 * their tmpfs shows the host's files there again, and the sandbox would look intact while
 * hiding nothing. Such a plan is refused, so the sandbox fails closed instead of open.
 */
import { SandboxUnavailableError } from "./errors.ts";
import { isWithin } from "./paths.ts";

/** One mount of a plan, in bubblewrap's order (a later mount covers what it lies over). */
export interface Mount {
  /** Its bubblewrap arguments. */
  args: string[];
  /** Where it appears inside the sandbox. */
  dest: string;
  /** What it shows there: host files, something private (empty or fresh), or nothing new (a symlink, a remount). */
  shows: "host" | "private" | "none";
}

/**
 * The first private mount that a later host mount shows the host over, with that mount;
 * undefined when every private path is still private at the end. `exposable` lists the
 * private paths a host mount may cover on purpose (a home the user works in).
 */
export function unsafeMount(
  mounts: readonly Mount[],
  exposable: readonly string[] = [],
): { hidden: Mount; by: Mount } | undefined {
  for (const [index, hidden] of mounts.entries()) {
    if (hidden.shows !== "private" || exposable.includes(hidden.dest)) continue;
    // What is visible at a path is the last mount at it or above it.
    const last = mounts.findLast(
      (mount, at) => at > index && mount.shows !== "none" && isWithin(hidden.dest, mount.dest),
    );
    if (last?.shows === "host") return { hidden, by: last };
  }
  return undefined;
}

/** Throws {@link SandboxUnavailableError} (`unsafeMounts`) when {@link unsafeMount} finds one. */
export function refuseUnsafeMounts(mounts: readonly Mount[], exposable: readonly string[] = []): void {
  const found = unsafeMount(mounts, exposable);
  if (!found) return;
  throw new SandboxUnavailableError(
    "unsafeMounts",
    `the sandbox's mounts were refused: \`${found.by.args.join(" ")}\` would show the host's files over the private \`${found.hidden.args.join(" ")}\`.`,
  );
}
