/**
 * The sandbox's view of the file system, planned from paths alone (pure), then turned
 * into bubblewrap arguments. Order matters: later mounts cover earlier ones.
 *
 * 1. the whole system read-only, a fresh /dev and /proc, a private /tmp;
 * 2. every home (`$HOME` and the account's home) replaced by an empty tmpfs;
 * 3. hidden dirs that contain a mounted path go first, so the mount shows through;
 * 4. read-only extras and the runtime the helper needs (bun, our sources), then the
 *    writable roots (the thread's cwd, `extraWritable`);
 * 5. the remaining hidden dirs (agent dir, session dirs, ~/.ssh & co. when a writable
 *    root contains them), `.git` of each writable root, and files whose other hard
 *    links lead outside, each read-only on top.
 */
import { join, relative, sep } from "node:path";
import type { SandboxNetwork } from "./settings.ts";

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
  /** Read-only paths (`extraReadable`, the runtime); may not exist. */
  readable: string[];
  /** `.git` paths of writable roots to keep read-only. */
  gitPaths: string[];
  /** Files (or folders of them) whose other hard links lead outside the writable roots. */
  readOnly: string[];
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

/** Where a host path appears inside the sandbox: below the workspace when it is in the cwd. */
export function insidePath(path: string, cwd: string, workspace: string | undefined): string {
  if (workspace === undefined || !isWithin(path, cwd)) return path;
  const rel = relative(cwd, path);
  return rel === "" ? workspace : join(workspace, rel);
}

/** Whether `child` is `parent` or inside it. */
export function isWithin(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/** The bubblewrap arguments (before the command) for a plan. */
export function bwrapArgs(plan: MountPlanInput): string[] {
  const args = [
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
    ...systemRoot(plan),
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
  ];
  for (const home of plan.homes) args.push("--tmpfs", home);
  const writable = [plan.cwd, ...plan.extraWritable];
  const mounted = [...writable, ...plan.readable];
  const coversMount = (dir: string) => mounted.some((m) => isWithin(m, dir));
  for (const dir of plan.hidden.filter(coversMount)) args.push("--tmpfs", dir);
  for (const path of plan.readable) args.push("--ro-bind-try", path, path);
  const at = (path: string) => insidePath(path, plan.cwd, plan.workspace);
  for (const path of writable) args.push("--bind", path, at(path));
  for (const dir of plan.hidden.filter((d) => !coversMount(d))) args.push("--tmpfs", at(dir));
  for (const file of plan.hiddenFiles) args.push("--ro-bind", "/dev/null", at(file));
  for (const path of [...plan.gitPaths, ...plan.readOnly]) args.push("--ro-bind", path, at(path));
  if (plan.workspace !== undefined && plan.rootEntries) args.push("--remount-ro", "/");
  args.push("--cap-drop", "ALL", "--chdir", at(plan.cwd));
  return args;
}

/** The read-only system: `/` as it is, or rebuilt entry by entry when a workspace needs a mount point. */
function systemRoot(plan: MountPlanInput): string[] {
  if (plan.workspace === undefined || !plan.rootEntries) return ["--ro-bind", "/", "/"];
  const args = ["--tmpfs", "/"];
  for (const entry of plan.rootEntries) {
    if (FRESH_ROOT_ENTRIES.has(entry.name)) continue;
    const path = `/${entry.name}`;
    if (entry.symlink !== undefined) args.push("--symlink", entry.symlink, path);
    else args.push("--ro-bind", path, path);
  }
  return args;
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
