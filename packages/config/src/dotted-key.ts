/**
 * Dotted settings keys (`retry.provider.maxRetryDelayMs`). A segment that itself holds
 * a dot or bracket (model IDs such as `openai/gpt-4.1`) is written as a JSON string in
 * brackets: `compaction.models["openai/gpt-4.1"].reserveTokens`. Origins use the same
 * notation, so every origin key can be written back.
 */
import { invalidParams } from "./errors.ts";

/** Segments that would reach an object's prototype chain. */
export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Splits a dotted key into segments; malformed keys and prototype-pollution segments throw `invalidParams`. */
export function parseDottedKey(key: string): string[] {
  if (typeof key !== "string" || key.length === 0) {
    throw invalidParams("malformedKey", "Settings key must be a non-empty string");
  }
  const segments: string[] = [];
  let i = 0;
  let expectSegment = true;
  while (i < key.length) {
    const ch = key[i];
    if (ch === "[") {
      const end = findBracketEnd(key, i);
      let segment: unknown;
      try {
        segment = JSON.parse(key.slice(i + 1, end));
      } catch {
        segment = undefined;
      }
      if (typeof segment !== "string" || segment.length === 0) {
        throw invalidParams(
          "malformedKey",
          `Malformed settings key "${key}": a bracket must hold a JSON string`,
        );
      }
      segments.push(segment);
      i = end + 1;
      expectSegment = false;
      if (i < key.length && key[i] !== "." && key[i] !== "[") {
        throw invalidParams("malformedKey", `Malformed settings key "${key}": expected "." after "]"`);
      }
      if (key[i] === ".") {
        i++;
        expectSegment = true;
      }
      continue;
    }
    let end = i;
    while (end < key.length && key[end] !== "." && key[end] !== "[") end++;
    const segment = key.slice(i, end);
    if (segment.length === 0 || segment.trim() !== segment) {
      throw invalidParams("malformedKey", `Malformed settings key "${key}": empty or padded segment`);
    }
    segments.push(segment);
    i = end;
    expectSegment = false;
    if (key[i] === ".") {
      i++;
      expectSegment = true;
    }
  }
  if (expectSegment) {
    throw invalidParams("malformedKey", `Malformed settings key "${key}": it ends with "."`);
  }
  for (const segment of segments) {
    if (FORBIDDEN_SEGMENTS.has(segment)) {
      throw invalidParams(
        "prototypePollution",
        `Settings key "${key}" uses the forbidden segment "${segment}"`,
      );
    }
  }
  return segments;
}

function findBracketEnd(key: string, open: number): number {
  let inString = false;
  for (let j = open + 1; j < key.length; j++) {
    const ch = key[j];
    if (inString) {
      if (ch === "\\") j++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
    } else if (ch === "]") {
      return j;
    }
  }
  throw invalidParams("malformedKey", `Malformed settings key "${key}": unclosed "["`);
}

/** Joins segments into the dotted form `parseDottedKey` accepts. */
export function formatDottedKey(segments: readonly string[]): string {
  let out = "";
  for (const segment of segments) {
    if (segment.length > 0 && !/[.[\]"]/.test(segment) && segment.trim() === segment) {
      out += out.length === 0 ? segment : `.${segment}`;
    } else {
      out += `[${JSON.stringify(segment)}]`;
    }
  }
  return out;
}

/** True for a plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at a path, or undefined. */
export function getAtPath(root: Record<string, unknown>, segments: readonly string[]): unknown {
  let node: unknown = root;
  for (const segment of segments) {
    if (!isPlainObject(node) || !Object.hasOwn(node, segment)) return undefined;
    node = node[segment];
  }
  return node;
}

/**
 * Sets the leaf at a path, creating objects on the way. A path that runs through a
 * non-object value is refused rather than silently replacing that value.
 */
export function setAtPath(root: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (next === undefined) {
      const created: Record<string, unknown> = {};
      node[segment] = created;
      node = created;
    } else if (isPlainObject(next)) {
      node = next;
    } else {
      throw invalidParams(
        "malformedKey",
        `Cannot set "${formatDottedKey(segments)}": "${formatDottedKey(segments.slice(0, i + 1))}" is not an object`,
      );
    }
  }
  node[segments[segments.length - 1]!] = value;
}

/** Deletes the leaf at a path and prunes the parents the deletion left empty; true when something was removed. */
export function deleteAtPath(root: Record<string, unknown>, segments: readonly string[]): boolean {
  const parents: Record<string, unknown>[] = [root];
  let node = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const next = Object.hasOwn(node, segments[i]!) ? node[segments[i]!] : undefined;
    if (!isPlainObject(next)) return false;
    parents.push(next);
    node = next;
  }
  const leaf = segments[segments.length - 1]!;
  if (!Object.hasOwn(node, leaf)) return false;
  delete node[leaf];
  for (let i = parents.length - 1; i > 0; i--) {
    if (Object.keys(parents[i]!).length > 0) break;
    delete parents[i - 1]![segments[i - 1]!];
  }
  return true;
}

/** Finds a forbidden key anywhere inside a value; returns its dotted location or null. */
export function findForbiddenKey(value: unknown, path: string[] = []): string | null {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findForbiddenKey(item, path);
      if (found !== null) return found;
    }
    return null;
  }
  if (!isPlainObject(value)) return null;
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_SEGMENTS.has(key)) return formatDottedKey([...path, key]);
    const found = findForbiddenKey(value[key], [...path, key]);
    if (found !== null) return found;
  }
  return null;
}
