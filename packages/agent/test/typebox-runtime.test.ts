/**
 * The prebuilt TypeBox bundle a workspace install makes (`scripts/prebuild-typebox.ts`):
 * it exists for the pinned version, it validates and coerces exactly as the package does
 * (built-in tool schemas, TypeBox-built and plain schemas, right and wrong arguments), a
 * fresh process's first validation loads it instead of the package's modules, and the
 * package is the fallback when it is missing or unusable.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectOutput } from "@knightcode/testkit";
import Type from "typebox";
import { prebuildTypeBox } from "../../../scripts/prebuild-typebox.ts";
import { BashParams } from "../src/tools/bash.ts";
import { EditParams } from "../src/tools/edit.ts";
import { FindParams } from "../src/tools/find.ts";
import { GrepParams } from "../src/tools/grep.ts";
import { LsParams } from "../src/tools/ls.ts";
import { ReadParams } from "../src/tools/read.ts";
import { WriteParams } from "../src/tools/write.ts";
import {
  loadTypeBoxRuntime,
  packageTypeBox,
  prebuiltTypeBox,
  prebuiltTypeBoxPath,
  TYPEBOX_VERSION,
  type TypeBoxRuntime,
} from "../src/typebox-runtime.ts";

const SCHEMAS: Record<string, object> = {
  BashParams,
  EditParams,
  FindParams,
  GrepParams,
  LsParams,
  ReadParams,
  WriteParams,
  built: Type.Object({
    name: Type.String({ minLength: 1 }),
    count: Type.Optional(Type.Integer({ minimum: 0 })),
    ratio: Type.Optional(Type.Number()),
    flags: Type.Optional(Type.Array(Type.Boolean())),
    mode: Type.Optional(Type.Union([Type.Literal("fast"), Type.Literal("slow")])),
  }),
  plain: {
    type: "object",
    properties: { path: { type: "string" }, limit: { type: "integer" } },
    required: ["path"],
    additionalProperties: false,
  },
};

const ARGUMENTS: unknown[] = [
  {},
  { path: "a.txt" },
  { path: "a.txt", offset: "3", limit: "10" },
  { path: 7, limit: "x" },
  { command: "ls", timeout: "5" },
  { command: ["ls"] },
  { path: "f", oldText: "a", newText: "b" },
  { path: "f", edits: [{ oldText: "a", newText: "b" }] },
  { pattern: "x", ignoreCase: "true", limit: 2 },
  { name: "n", count: "4", ratio: "0.5", flags: ["true", false], mode: "fast" },
  { name: "", count: -1, mode: "medium" },
  { name: 3, extra: true },
  null,
  "text",
  [1, 2],
];

/** What a validation observes: the coerced value, the verdict and every error. */
function outcome(runtime: TypeBoxRuntime, schema: object, args: unknown) {
  const validator = runtime.Compile(schema as never);
  const converted = runtime.Value.Convert(schema as never, structuredClone(args));
  return {
    converted,
    ok: validator.Check(converted),
    errors: [...validator.Errors(converted)].map((e) => ({ path: e.instancePath, message: e.message })),
  };
}

describe("the prebuilt TypeBox runtime", () => {
  test("the install made it for the pinned TypeBox version", () => {
    expect(prebuiltTypeBoxPath()).toEndWith(`typebox-runtime-${TYPEBOX_VERSION}-bun-${Bun.version}.js`);
    expect(existsSync(prebuiltTypeBoxPath())).toBe(true);
    expect(existsSync(`${prebuiltTypeBoxPath()}.jsc`)).toBe(true);
    expect(prebuiltTypeBox()).toBeDefined();
  });

  test("it coerces, checks and reports exactly as the package does", () => {
    const prebuilt = prebuiltTypeBox()!;
    const fromPackage = packageTypeBox();
    let compared = 0;
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      for (const args of ARGUMENTS) {
        expect({ name, args, ...outcome(prebuilt, schema, args) }).toEqual({
          name,
          args,
          ...outcome(fromPackage, schema, args),
        });
        compared++;
      }
    }
    expect(compared).toBe(Object.keys(SCHEMAS).length * ARGUMENTS.length);
  });

  test("a fresh process's first validation loads the bundle, none of the package's modules", async () => {
    const script = `
      const { validateToolArgs } = await import(${JSON.stringify(join(import.meta.dir, "..", "src", "validate-args.ts"))});
      const { ReadParams } = await import(${JSON.stringify(join(import.meta.dir, "..", "src", "tools", "read.ts"))});
      const result = validateToolArgs("read", ReadParams, { path: "a", limit: "3" });
      const loaded = Object.keys(require.cache);
      console.log(JSON.stringify({
        result,
        bundle: loaded.includes(${JSON.stringify(prebuiltTypeBoxPath())}),
        packageModules: loaded.filter((path) => /[\\\\/]typebox[\\\\/]build[\\\\/]/.test(path)).length,
      }));`;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const { stdout: out, stderr: err, code } = await collectOutput(child);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({
      result: { ok: true, args: { path: "a", limit: 3 } },
      bundle: true,
      packageModules: 0,
    });
  });

  test("building again keeps a bundle in place; a fresh build writes both files", async () => {
    expect(await prebuildTypeBox()).toBe(prebuiltTypeBoxPath());
    const target = join(mkdtempSync(join(tmpdir(), "kc-typebox-")), "typebox-runtime-test.js");
    expect(await prebuildTypeBox(target)).toBe(target);
    expect(existsSync(target) && existsSync(`${target}.jsc`)).toBe(true);
    const built = require(target) as TypeBoxRuntime;
    expect(outcome(built, ReadParams, { path: "a", limit: "3" })).toEqual(
      outcome(packageTypeBox(), ReadParams, { path: "a", limit: "3" }),
    );
  });
});

describe("without a usable bundle", () => {
  const dir = mkdtempSync(join(tmpdir(), "kc-typebox-bad-"));

  test("a missing, foreign or broken file is not used, and validation gets the package", () => {
    const foreign = join(dir, "foreign.js");
    writeFileSync(foreign, "module.exports = { Compile: 1 };\n");
    const broken = join(dir, "broken.js");
    writeFileSync(broken, "module.exports = (\n");
    for (const path of [join(dir, "missing.js"), foreign, broken]) {
      expect(prebuiltTypeBox(path)).toBeUndefined();
      const runtime = loadTypeBoxRuntime(path);
      expect(runtime.Compile).toBe(packageTypeBox().Compile);
      expect(runtime.Value).toBe(packageTypeBox().Value);
    }
  });
});
