/**
 * Resolves a path to its real location, or returns null when nothing exists there.
 * Throwing (permission denied, symlink loop) means "cannot tell" and fails closed.
 */
export type RealpathFn = (path: string) => string | null;

/** Where a tool's target path really lands, as far as the filesystem can tell. */
export interface ResolvedTarget {
  /** The physical path (symlinks followed for every existing component). */
  readonly path: string;
  /** False when some component could not be resolved for a reason other than not existing. */
  readonly certain: boolean;
}

const isWindowsAbsolute = (p: string): boolean => /^[A-Za-z]:[\\/]/.test(p) || p.startsWith("\\\\");

function splitPath(p: string): string[] {
  return p.split(/[\\/]+/).filter((part) => part.length > 0);
}

function joinPath(root: string, parts: readonly string[]): string {
  if (root === "") return parts.join("/");
  if (parts.length === 0) return root;
  return root.endsWith("/") ? root + parts.join("/") : `${root}/${parts.join("/")}`;
}

function safeRealpath(realpath: RealpathFn, path: string): { path: string | null; ok: boolean } {
  try {
    return { path: realpath(path), ok: true };
  } catch {
    return { path: null, ok: false };
  }
}

/**
 * Resolves `target` against `cwd` component by component, the way the kernel does:
 * a `..` after a symlink climbs out of the symlink's destination, not its name.
 * Components past the first missing one are applied lexically.
 */
export function resolveTarget(target: string, cwd: string, realpath: RealpathFn): ResolvedTarget {
  const absolute = target.startsWith("/") || isWindowsAbsolute(target);
  const base = absolute ? target : cwd;
  const rest = absolute ? [] : splitPath(target);
  let certain = true;
  // Start from the real root of the base, then walk the remaining components.
  const root = base.startsWith("/") ? "/" : "";
  let current: string[] = [];
  let exists = true;
  const step = (part: string): void => {
    if (part === ".") return;
    if (part === "..") {
      current = current.slice(0, -1);
      return;
    }
    current.push(part);
    if (!exists) return;
    const resolved = safeRealpath(realpath, joinPath(root, current));
    if (!resolved.ok) certain = false;
    if (resolved.path === null) {
      exists = false;
      return;
    }
    current = splitPath(resolved.path);
  };
  for (const part of splitPath(base)) step(part);
  for (const part of rest) step(part);
  return { path: joinPath(root, current), certain };
}

/** True when `child` is `parent` or lies beneath it (both already resolved). */
export function isWithin(child: string, parent: string): boolean {
  const c = splitPath(child);
  const p = splitPath(parent);
  return p.length <= c.length && p.every((part, i) => part === c[i]);
}

/**
 * True when writing `target` from a thread in `cwd` would land outside the workspace
 * (the thread's real cwd). Unresolvable components count as outside: fail closed.
 */
export function isOutsideWorkspace(target: string, cwd: string, realpath: RealpathFn): boolean {
  const workspace = resolveTarget(cwd, "/", realpath);
  const resolved = resolveTarget(target, cwd, realpath);
  if (!workspace.certain || !resolved.certain) return true;
  return !isWithin(resolved.path, workspace.path);
}

/**
 * The ways an edit tool may read a model-supplied path: as given, trimmed, and without
 * a leading `@` (models add one; the built-in tools strip it), with a leading `~/`
 * expanded to `homeDir`. Null when some reading cannot be placed (`~` without a home
 * directory, `~user`, an empty path).
 */
export function toolPathCandidates(path: string, homeDir?: string): string[] | null {
  const trimmed = path.trim();
  const readings = [path, trimmed, trimmed.startsWith("@") ? trimmed.slice(1) : trimmed];
  const candidates: string[] = [];
  for (const reading of new Set(readings)) {
    if (reading.length === 0) return null;
    if (!reading.startsWith("~")) {
      candidates.push(reading);
      continue;
    }
    const rest = reading.slice(1);
    if (homeDir === undefined || (rest !== "" && !/^[\\/]/.test(rest))) return null;
    candidates.push(rest === "" ? homeDir : joinPath(homeDir, splitPath(rest)));
  }
  return candidates;
}

/**
 * True when any reading of a tool's `path` (see `toolPathCandidates`) lands outside the
 * workspace, or when one cannot be placed at all: fail closed.
 */
export function isToolPathOutsideWorkspace(
  path: string,
  cwd: string,
  realpath: RealpathFn,
  homeDir?: string,
): boolean {
  const candidates = toolPathCandidates(path, homeDir);
  if (candidates === null) return true;
  return candidates.some((candidate) => isOutsideWorkspace(candidate, cwd, realpath));
}
