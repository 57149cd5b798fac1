/**
 * The sandbox's view of the file system, planned from paths alone (pure), then turned
 * into bubblewrap arguments. Order matters: later mounts cover earlier ones.
 *
 * 1. the whole system read-only, a fresh /dev and /proc, a private /tmp;
 * 2. every home (`$HOME` and the account's home) replaced by an empty tmpfs;
 * 3. hidden dirs that contain a mounted path go first, so the mount shows through;
 * 4. read-only extras and the runtime the helper needs (the knightcode binary, or bun
 *    and our sources), then the writable roots (the thread's cwd, `extraWritable`);
 * 5. `.git` of each writable root read-only on top, then what a linked worktree's git
 *    may write in the main repository's common dir (linked-git-dir.ts), then files whose
 *    other hard links lead outside and the common dir's parts that stay read-only;
 * 6. last, so nothing covers them again: the remaining hidden dirs (agent dir, session
 *    dirs, ~/.ssh & co. when a writable root contains them) and hidden files.
 *
 * A plan in which a later mount would show host files over a private one is refused
 * (mount-guard.ts).
 */
import { join, sep } from "node:path";
import type { LinkedGitMounts } from "./linked-git-dir.ts";
import { type Mount, refuseUnsafeMounts } from "./mount-guard.ts";
import { insidePath, isWithin } from "./paths.ts";
import type { SandboxNetwork } from "./settings.ts";

export type { Mount };

/** Secret folders below a home that stay hidden even when a writable root contains them. */
export const HOME_SECRETS = [".ssh", ".aws", ".gnupg", ".config/gcloud", ".docker", ".kube", ".netrc"];

/** Everything the mounts are planned from; paths are absolute and exist unless noted. */
export interface MountPlanInput {
  /** The thread's cwd: the first writable root and the helper's working directory. */
  cwd: string;
  /** Homes to replace with an empty tmpfs (may not exist). */
  homes: string[];
  /** Folders that must not be visible (agent dir, session dirs); missing ones are skipped by the caller. */
  hidden: string[];
  /** Files that must not be visible (a `~/.netrc` inside a writable root); shown as empty. */
  hiddenFiles: string[];
  extraWritable: string[];
  /** Read-only paths the user asked for (`extraReadable`); may not exist. */
  readable: string[];
  /**
   * Read-only paths the helper needs to run (the executable, sources): given by whoever
   * starts the sandbox, never derived from where this module lives. May not exist.
   */
  runtime: string[];
  /** `.git` paths of writable roots to keep read-only. */
  gitPaths: string[];
  /** Files (or folders of them) whose other hard links lead outside the writable roots. */
  readOnly: string[];
  /** The common git dirs of linked worktrees among the writable roots (see linked-git-dir.ts). */
  linkedGit?: LinkedGitMounts;
  network: SandboxNetwork;
  /** Where the cwd appears inside (`sandbox.workspace`, e.g. `/workspace`); its own path when absent. */
  workspace?: string;
  /**
   * With a workspace: the host's top-level entries, rebuilt on a tmpfs root (which is then
   * made read-only) so the workspace mount point can be created where the host has none.
   */
  rootEntries?: RootEntry[];
}

/** One entry of the host's `/`. */
export interface RootEntry {
  name: string;
  /** The link target when the entry is a symlink (`/bin -> usr/bin`). */
  symlink?: string;
}

// Mounted fresh, never copied from the host.
const FRESH_ROOT_ENTRIES = new Set(["proc", "dev", "tmp"]);

const hostBind = (flag: string, source: string, dest: string): Mount => ({
  args: [flag, source, dest],
  dest,
  shows: source === "/dev/null" ? "private" : "host",
});
const privateMount = (flag: "--tmpfs" | "--dev" | "--proc", dest: string): Mount => ({
  args: [flag, dest],
  dest,
  shows: "private",
});

/** The mounts of a plan, in order; see the file's comment for why this order. */
export function planMounts(plan: MountPlanInput): Mount[] {
  const mounts = [
    ...systemRoot(plan),
    privateMount("--dev", "/dev"),
    privateMount("--proc", "/proc"),
    privateMount("--tmpfs", "/tmp"),
  ];
  for (const home of plan.homes) mounts.push(privateMount("--tmpfs", home));
  const writable = [plan.cwd, ...plan.extraWritable];
  const git = plan.linkedGit ?? { readable: [], writable: [], readOnly: [] };
  const readable = [...plan.readable, ...plan.runtime, ...git.readable];
  const mounted = [...writable, ...readable, ...git.writable];
  const coversMount = (dir: string) => mounted.some((m) => isWithin(m, dir));
  for (const dir of plan.hidden.filter(coversMount)) mounts.push(privateMount("--tmpfs", dir));
  for (const path of readable) mounts.push(hostBind("--ro-bind-try", path, path));
  const at = (path: string) => insidePath(path, plan.cwd, plan.workspace);
  for (const path of writable) mounts.push(hostBind("--bind", path, at(path)));
  for (const path of plan.gitPaths) mounts.push(hostBind("--ro-bind", path, at(path)));
  for (const path of git.writable) mounts.push(hostBind("--bind", path, at(path)));
  for (const path of plan.readOnly) mounts.push(hostBind("--ro-bind", path, at(path)));
  // -try: another worktree's ref listed at planning may be gone by the time bwrap runs
  for (const path of git.readOnly) mounts.push(hostBind("--ro-bind-try", path, at(path)));
  for (const dir of plan.hidden.filter((d) => !coversMount(d))) mounts.push(privateMount("--tmpfs", at(dir)));
  for (const file of plan.hiddenFiles) mounts.push(hostBind("--ro-bind", "/dev/null", at(file)));
  if (plan.workspace !== undefined && plan.rootEntries)
    mounts.push({ args: ["--remount-ro", "/"], dest: "/", shows: "none" });
  return mounts;
}

/**
 * The bubblewrap arguments (before the command) for a plan. Throws
 * {@link SandboxUnavailableError} (`unsafeMounts`) when a later mount would show host
 * files over a private one (see mount-guard.ts): the sandbox then does not start.
 */
export function bwrapArgs(plan: MountPlanInput): string[] {
  const mounts = planMounts(plan);
  // A home the user works in (the cwd, `extraWritable`) or asked to read (`extraReadable`)
  // is shown on purpose; its secrets, the agent dir and the session dirs are hidden again on top.
  const chosen = [plan.cwd, ...plan.extraWritable, ...plan.readable];
  refuseUnsafeMounts(
    mounts,
    plan.homes.filter((home) => chosen.some((root) => isWithin(home, root))),
  );
  return [
    "--die-with-parent",
    // A new session: the sandbox cannot inject keystrokes into the terminal (TIOCSTI).
    "--new-session",
    "--unshare-user",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(plan.network === "off" ? ["--unshare-net"] : []),
    "--hostname",
    "knightcode-sandbox",
    ...mounts.flatMap((mount) => mount.args),
    "--cap-drop",
    "ALL",
    "--chdir",
    insidePath(plan.cwd, plan.cwd, plan.workspace),
  ];
}

/** The read-only system: `/` as it is, or rebuilt entry by entry when a workspace needs a mount point. */
function systemRoot(plan: MountPlanInput): Mount[] {
  if (plan.workspace === undefined || !plan.rootEntries) return [hostBind("--ro-bind", "/", "/")];
  // The empty root is the base the entries are laid on, not something hidden.
  const mounts: Mount[] = [{ args: ["--tmpfs", "/"], dest: "/", shows: "none" }];
  for (const entry of plan.rootEntries) {
    if (FRESH_ROOT_ENTRIES.has(entry.name)) continue;
    const path = `/${entry.name}`;
    if (entry.symlink !== undefined)
      mounts.push({ args: ["--symlink", entry.symlink, path], dest: path, shows: "none" });
    else mounts.push(hostBind("--ro-bind", path, path));
  }
  return mounts;
}

/** Home secrets that a writable root exposes again, as absolute paths (existence unchecked). */
export function exposedHomeSecrets(homes: readonly string[], writable: readonly string[]): string[] {
  return homes
    .flatMap((home) => HOME_SECRETS.map((secret) => join(home, secret)))
    .filter((path) => writable.some((root) => isWithin(path, root)));
}

/**
 * Collapses a long list of files into at most `max` entries by cutting every path at the
 * deepest common depth that leaves few enough distinct folders, never climbing to a root
 * itself, so one bwrap call stays small even when a dependency folder is full of hard
 * links (bun installs them). One pass per depth over precomputed separator positions.
 */
export function collapsePaths(paths: readonly string[], roots: readonly string[], max: number): string[] {
  const unique = [...new Set(paths)];
  if (unique.length <= max) return unique.sort();
  const entries = unique.map((path) => {
    const root = roots.find((r) => path === r || path.startsWith(r.endsWith(sep) ? r : r + sep)) ?? sep;
    const cuts: number[] = [];
    for (let i = root.length + 1; i < path.length; i++) if (path[i] === sep) cuts.push(i);
    // cuts[k] ends the (k+1)-th component below the root; cutting at 0 components is the root
    return { path, cuts };
  });
  const foldAt = (level: number): string[] => {
    const folded = new Set<string>();
    for (const { path, cuts } of entries)
      folded.add(cuts.length >= level ? path.slice(0, cuts[level - 1]) : path);
    return [...folded];
  };
  // More levels kept means more distinct folders: binary-search the deepest level that fits.
  let low = 1;
  let high = Math.max(...entries.map((e) => e.cuts.length));
  let best = foldAt(low);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const folded = foldAt(mid);
    if (folded.length <= max) {
      best = folded;
      low = mid;
    } else high = mid - 1;
  }
  return best.sort();
}
