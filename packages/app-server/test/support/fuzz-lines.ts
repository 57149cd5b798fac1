/** Random and malformed JSON lines for the fuzz tests, and what the server must answer to each. */
import { CLIENT_REQUEST_METHODS } from "@knightcode/app-server-protocol";

/** A small seeded PRNG (mulberry32), so a failing run can be replayed. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = [...CLIENT_REQUEST_METHODS.filter((m) => m !== "file/search"), "no/such", "", "initialize"];
const STRANGE_STRINGS = [
  "\u2028",
  "\u2029",
  "\\ud800",
  "\\udfff",
  "\u0000",
  "é",
  "🎉",
  "\\u0000",
  '\\"',
  "a".repeat(300),
];

function randomValue(rand: () => number, depth = 0): string {
  const r = rand();
  if (depth > 3 || r < 0.2) return JSON.stringify(Math.floor(rand() * 1000) - 500);
  if (r < 0.3)
    return ["1e400", "-0", "123456789012345678901234567890", "1.5e-400", "NaN", "0x10"][
      Math.floor(rand() * 6)
    ]!;
  if (r < 0.5) return `"${STRANGE_STRINGS[Math.floor(rand() * STRANGE_STRINGS.length)]}"`;
  if (r < 0.6) return ["true", "false", "null"][Math.floor(rand() * 3)]!;
  if (r < 0.8) {
    const n = Math.floor(rand() * 4);
    return `[${Array.from({ length: n }, () => randomValue(rand, depth + 1)).join(",")}]`;
  }
  const keys = [
    "threadId",
    "cwd",
    "text",
    "id",
    "offset",
    "query",
    "clientInfo",
    "__proto__",
    "constructor",
    "x",
  ];
  const n = Math.floor(rand() * 4);
  const fields = Array.from(
    { length: n },
    () => `"${keys[Math.floor(rand() * keys.length)]}":${randomValue(rand, depth + 1)}`,
  );
  return `{${fields.join(",")}}`;
}

/** One fuzz line. */
export function fuzzLine(rand: () => number, n: number): string {
  const r = rand();
  if (r < 0.1) {
    const chars = Array.from({ length: 1 + Math.floor(rand() * 40) }, () =>
      String.fromCharCode(32 + Math.floor(rand() * 95)),
    );
    return chars.join("");
  }
  if (r < 0.15) return `{"id":${n},"method":"thread/list","params":{`;
  if (r < 0.2) return "[".repeat(5000 + Math.floor(rand() * 50_000));
  if (r < 0.25) {
    const depth = 2000 + Math.floor(rand() * 3000);
    return `${"[".repeat(depth)}${"]".repeat(depth)}`;
  }
  if (r < 0.35) return randomValue(rand);
  const method = METHODS[Math.floor(rand() * METHODS.length)]!;
  const id = rand() < 0.5 ? `"r${n}"` : String(n + 1_000_000);
  const params =
    rand() < 0.8 ? randomValue(rand) : `{"threadId":"t1","text":"hi\u2028there","cwd":"/nonexistent/${n}"}`;
  // sometimes an id that is not a usable id: the server answers with id null
  const idText = rand() < 0.1 ? (rand() < 0.5 ? "1e400" : "[1]") : id;
  return `{"id":${idText},"method":"${method}","params":${params}}`;
}

/** How the server must react: answer this id, answer with id null, or nothing (a notification). */
export function expectation(
  line: string,
  maxBytes: number,
): { kind: "id"; id: string | number } | { kind: "null" } | { kind: "none" } {
  if (Buffer.byteLength(line) > maxBytes) return { kind: "none" };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: "null" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { kind: "null" };
  const record = value as Record<string, unknown>;
  const id = record.id;
  const usable = typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
  if (typeof record.method === "string" && usable) return { kind: "id", id: id as string | number };
  if (typeof record.method === "string" && !("id" in record)) return { kind: "none" };
  // malformed but carrying a usable id: answered under that id
  if (usable) return { kind: "none" };
  return { kind: "null" };
}
