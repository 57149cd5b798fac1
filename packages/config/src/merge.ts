/**
 * Project-over-global deep merge, the origin of each merged leaf, and the scrub that
 * keeps prototype-chain keys read from disk out of every merged object.
 */
import { FORBIDDEN_SEGMENTS, formatDottedKey, isPlainObject } from "./dotted-key.ts";

/** Which settings file a value came from. */
export type SettingsScope = "global" | "project";

/** Deep-merges objects (arrays and scalars replace, objects merge); inputs are not modified. */
export function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(base)) {
    if (FORBIDDEN_SEGMENTS.has(key)) continue;
    result[key] = cloneJson(base[key]);
  }
  for (const key of Object.keys(over)) {
    if (FORBIDDEN_SEGMENTS.has(key)) continue;
    const b = result[key];
    const o = over[key];
    result[key] = isPlainObject(b) && isPlainObject(o) ? deepMerge(b, o) : cloneJson(o);
  }
  return result;
}

function cloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (isPlainObject(value)) return deepMerge({}, value);
  return value;
}

/**
 * Removes prototype-chain keys at any depth, returning the dotted locations removed.
 * JSON.parse creates `__proto__` as an own key; copying it with plain assignment
 * anywhere later would swap an object's prototype.
 */
export function scrubForbiddenKeys(value: Record<string, unknown>, path: string[] = []): string[] {
  const removed: string[] = [];
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_SEGMENTS.has(key)) {
      delete value[key];
      removed.push(formatDottedKey([...path, key]));
      continue;
    }
    const child = value[key];
    if (isPlainObject(child)) removed.push(...scrubForbiddenKeys(child, [...path, key]));
    else if (Array.isArray(child)) {
      for (const item of child)
        if (isPlainObject(item)) removed.push(...scrubForbiddenKeys(item, [...path, key]));
    }
  }
  return removed;
}

/** The dotted paths of every leaf (scalar, array or empty object) of a settings object. */
export function leafPaths(value: Record<string, unknown>, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  for (const key of Object.keys(value)) {
    const child = value[key];
    const path = [...prefix, key];
    if (isPlainObject(child) && Object.keys(child).length > 0) out.push(...leafPaths(child, path));
    else out.push(path);
  }
  return out;
}

/** Maps each merged leaf's dotted key to the scope that supplied it (project wins where it defines the path). */
export function mergeOrigins(
  merged: Record<string, unknown>,
  project: Record<string, unknown> | null,
): Record<string, SettingsScope> {
  const origins: Record<string, SettingsScope> = {};
  for (const path of leafPaths(merged)) {
    origins[formatDottedKey(path)] = project !== null && hasPath(project, path) ? "project" : "global";
  }
  return origins;
}

function hasPath(root: Record<string, unknown>, path: readonly string[]): boolean {
  let node: unknown = root;
  for (const segment of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, segment)) return false;
    node = node[segment];
  }
  return true;
}
