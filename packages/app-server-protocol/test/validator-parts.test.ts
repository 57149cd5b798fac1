/**
 * The pre-compiled validators are split into parts (`src/validator-parts.ts`) so that a
 * request's first validation compiles only the code its properties reach. Splitting must
 * not change a single error: these tests compare the generated validators with ajv
 * compiling the unsplit schemas at run time, error by error, on the wire corpus and on
 * many payloads derived from it.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { VALIDATORS } from "../src/generated/validators.ts";
import { AJV_OPTIONS, validatorKeys } from "../src/validator-codegen.ts";
import { splitIntoParts } from "../src/validator-parts.ts";

type Check = ((value: unknown) => boolean) & { errors?: AjvError[] | null };
interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
type Key = string | number;
type Bag = Record<Key, unknown>;
type Cases = Record<
  string,
  { valid: unknown[]; invalid: unknown[]; results?: unknown[]; invalidResults?: unknown[] }
>;

const corpus = (name: string) =>
  JSON.parse(readFileSync(join(import.meta.dir, "corpus", name), "utf8")) as Cases;

/** Corpus payloads for each validator key. */
function corpusPayloads(): Map<string, unknown[]> {
  const payloads = new Map<string, unknown[]>();
  for (const [method, cases] of Object.entries(corpus("requests.json")))
    payloads.set(`request ${method} params`, [...cases.valid, ...cases.invalid]);
  for (const [method, cases] of Object.entries(corpus("server-requests.json"))) {
    payloads.set(`serverRequest ${method} params`, [...cases.valid, ...cases.invalid]);
    payloads.set(`serverRequest ${method} result`, [
      ...(cases.results ?? []),
      ...(cases.invalidResults ?? []),
    ]);
  }
  payloads.set("notification initialized params", [{}, { extra: 1 }, null]);
  return payloads;
}

const WRONG_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  700000,
  "",
  "x",
  "\u0000",
  "a".repeat(600),
  [],
  [1],
  {},
];

/**
 * Payloads derived from `value`: every value inside it replaced by each wrong value, every
 * property removed, and an unexpected property (named with `/` and `~`, which paths escape)
 * added to every object.
 */
function mutations(value: unknown): unknown[] {
  const out: unknown[] = [];
  const edit = (path: Key[], change: (parent: Bag, key: Key) => void) => {
    const copy = structuredClone(value);
    const parent = path.slice(0, -1).reduce<Bag>((node, key) => node[key] as Bag, copy as Bag);
    change(parent, path.at(-1)!);
    out.push(copy);
  };
  const walk = (node: unknown, path: Key[]) => {
    if (path.length > 0) {
      for (const wrong of WRONG_VALUES) edit(path, (parent, key) => (parent[key] = structuredClone(wrong)));
      if (typeof path.at(-1) === "string") edit(path, (parent, key) => delete parent[key]);
    }
    if (Array.isArray(node)) {
      for (const [index, child] of node.entries()) walk(child, [...path, index]);
    } else if (node !== null && typeof node === "object") {
      edit([...path, "a/b~c"], (parent, key) => (parent[key] = { command: "x" }));
      for (const [key, child] of Object.entries(node)) walk(child, [...path, key]);
    }
  };
  walk(value, []);
  return out;
}

const errorsOf = (check: Check, value: unknown) => {
  const valid = check(value);
  const errors = (check.errors ?? []).map(({ instancePath, keyword, params, message }) => ({
    instancePath,
    keyword,
    params,
    message,
  }));
  return { valid, errors };
};

describe("validators split into parts", () => {
  const table = VALIDATORS as unknown as Record<string, Check>;
  const runtime = new Ajv(AJV_OPTIONS);

  test("give the same errors, in the same order, as the unsplit schemas", () => {
    const payloads = corpusPayloads();
    let compared = 0;
    let invalid = 0;
    let deepest = 0;
    for (const [key, schema] of validatorKeys()) {
      const unsplit = runtime.compile(schema) as Check;
      const base = payloads.get(key) ?? [{}];
      for (const payload of [...base, ...base.flatMap(mutations)]) {
        const expected = errorsOf(unsplit, payload);
        expect({ key, payload, ...errorsOf(table[key]!, payload) }).toEqual({ key, payload, ...expected });
        compared++;
        if (!expected.valid) invalid++;
        for (const error of expected.errors)
          deepest = Math.max(deepest, error.instancePath.split("/").length - 1);
      }
    }
    // The derived payloads reach deep into nested parts (an MCP server's args, say).
    expect(compared).toBeGreaterThan(5000);
    expect(invalid).toBeGreaterThan(4000);
    expect(deepest).toBeGreaterThanOrEqual(4);
  });

  test("the function a validator starts in holds only its own checks, nested schemas are calls", () => {
    const lines = Object.entries(table).map(([key, check]) => ({
      key,
      lines: check.toString().split("\n").length,
    }));
    expect(lines.filter((entry) => entry.lines > 200)).toEqual([]);
    const threadStart = table["request thread/start params"]!.toString();
    for (const nested of ["approvalMode", "model", "thinkingLevel", "mcpServers"])
      expect(threadStart).toMatch(new RegExp(`validate\\d+\\(data\\.${nested},`));
  });

  test("equal subschemas become one part; small ones stay inline; the input is untouched", () => {
    const heavy = { type: "object", required: ["id"], properties: { id: { type: "string", minLength: 1 } } };
    const roots = new Map<string, object>([
      ["a", { type: "object", properties: { model: heavy, name: { type: "string", maxLength: 9 } } }],
      ["b", { type: "object", properties: { other: structuredClone(heavy) } }],
    ]);
    const before = structuredClone([...roots]);
    const { roots: split, parts } = splitIntoParts(roots);
    expect([...parts]).toEqual([["part0", heavy]]);
    expect(split.get("a")).toEqual({
      type: "object",
      properties: { model: { $ref: "part0" }, name: { type: "string", maxLength: 9 } },
    });
    expect(split.get("b")).toEqual({ type: "object", properties: { other: { $ref: "part0" } } });
    expect([...roots]).toEqual(before);
  });
});
