/**
 * `JSON.stringify` of plain protocol data, produced as a sequence of bounded pieces. A
 * 50 MiB agent message serialized in one piece is one more 50 MiB string at the moment
 * its reply ends; in pieces, a value can be measured and written to a spool file while
 * only one piece at a time is in memory. The pieces joined equal `JSON.stringify(value)`
 * for JSON data (plain objects, arrays, strings, finite numbers, booleans, null; `toJSON`
 * is honoured, `undefined` and functions are left out as `JSON.stringify` leaves them).
 */

/** Strings longer than this (UTF-16 units) are serialized in slices of this length. */
export const JSON_SLICE_UNITS = 256 * 1024;

/** Yields pieces whose concatenation is `JSON.stringify(value)` (nothing when that is `undefined`). */
export function* jsonPieces(value: unknown): Generator<string> {
  const v = resolved(value, "");
  if (serializable(v)) yield* piecesOf(v);
}

/** The value as JSON.stringify sees it: after `toJSON`. */
function resolved(value: unknown, key: string): unknown {
  if (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === "function"
  ) {
    return (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  return value;
}

/** Whether JSON.stringify writes the value (rather than leaving its member out). */
const serializable = (v: unknown): boolean =>
  v !== undefined && typeof v !== "function" && typeof v !== "symbol";

function* piecesOf(v: unknown): Generator<string> {
  if (typeof v === "string") {
    if (v.length <= JSON_SLICE_UNITS) yield JSON.stringify(v);
    else yield* longString(v);
    return;
  }
  if (typeof v !== "object" || v === null) {
    // numbers, booleans, null, bigint (which throws as in JSON.stringify): the engine's own answer
    yield JSON.stringify(v) as string;
    return;
  }
  if (Array.isArray(v)) {
    yield "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) yield ",";
      const element = resolved(v[i], String(i));
      if (serializable(element)) yield* piecesOf(element);
      else yield "null";
    }
    yield "]";
    return;
  }
  yield "{";
  let first = true;
  for (const k of Object.keys(v)) {
    const member = resolved((v as Record<string, unknown>)[k], k);
    if (!serializable(member)) continue;
    yield `${first ? "" : ","}${JSON.stringify(k)}:`;
    first = false;
    yield* piecesOf(member);
  }
  yield "}";
}

/** Characters JSON.stringify writes as something other than themselves (lone surrogates included). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A long string's JSON in slices; a slice never ends between the halves of a surrogate pair. */
function* longString(text: string): Generator<string> {
  yield '"';
  let from = 0;
  while (from < text.length) {
    let to = Math.min(text.length, from + JSON_SLICE_UNITS);
    const last = text.charCodeAt(to - 1);
    if (to < text.length && last >= 0xd800 && last <= 0xdbff) to -= 1;
    const slice = text.slice(from, to);
    // most text needs no escaping: then the slice is its own JSON and no copy is made
    yield NEEDS_ESCAPE.test(slice) ? JSON.stringify(slice).slice(1, -1) : slice;
    from = to;
  }
  yield '"';
}
