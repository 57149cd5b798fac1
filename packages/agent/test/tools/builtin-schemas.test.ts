import { describe, expect, test } from "bun:test";
import Type, { type TSchema } from "typebox";
import { validateToolArgs } from "../../src/index.ts";
import { BashParams } from "../../src/tools/bash.ts";
import { EditParams } from "../../src/tools/edit.ts";
import { FindParams } from "../../src/tools/find.ts";
import { GrepParams } from "../../src/tools/grep.ts";
import { AskUserParams, SubmitPlanParams } from "../../src/tools/host-tools.ts";
import { LsParams } from "../../src/tools/ls.ts";
import { ReadParams } from "../../src/tools/read.ts";
import { withTypeBoxKinds } from "../../src/tools/typebox-kinds.ts";
import { WriteParams } from "../../src/tools/write.ts";

const BUILTIN: Record<string, object> = {
  BashParams,
  EditParams,
  FindParams,
  GrepParams,
  AskUserParams,
  SubmitPlanParams,
  LsParams,
  ReadParams,
  WriteParams,
};

type Plain = {
  type: string;
  properties?: Record<string, Plain>;
  required?: string[];
  items?: Plain;
  [keyword: string]: unknown;
};

/** The same schema spelled with TypeBox's builder, as the tools declared it before. */
function viaTypeBox(schema: Plain): TSchema {
  const { type, properties, required, items, ...options } = schema;
  switch (type) {
    case "object": {
      const built: Record<string, TSchema> = {};
      for (const [key, property] of Object.entries(properties ?? {})) {
        const inner = viaTypeBox(property);
        built[key] = (required ?? []).includes(key) ? inner : Type.Optional(inner);
      }
      return Type.Object(built, options);
    }
    case "array":
      return Type.Array(viaTypeBox(items as Plain), options);
    case "string":
      return Type.String(options);
    case "number":
      return Type.Number(options);
    case "integer":
      return Type.Integer(options);
    case "boolean":
      return Type.Boolean(options);
    default:
      throw new Error(`no builder for ${type}`);
  }
}

/** Every own property, hidden ones included, with its enumerability: what TypeBox reads. */
function anatomy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(anatomy);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(value)).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    out[descriptor.enumerable === true ? key : `hidden ${key}`] = anatomy(descriptor.value);
  }
  return out;
}

describe("built-in tool schemas", () => {
  for (const [name, schema] of Object.entries(BUILTIN)) {
    test(`${name} is what TypeBox's builder makes, hidden marks included`, () => {
      expect(anatomy(schema)).toEqual(anatomy(viaTypeBox(schema as Plain)));
    });
  }

  test("a model's strings are coerced as for a TypeBox schema", () => {
    expect(validateToolArgs("read", ReadParams, { path: 7, offset: "3" })).toEqual({
      ok: true,
      args: { path: "7", offset: 3 },
    });
    expect(validateToolArgs("grep", GrepParams, { pattern: "x", ignoreCase: "true" })).toEqual({
      ok: true,
      args: { pattern: "x", ignoreCase: true },
    });
  });

  test("the JSON a model sees carries no marks", () => {
    expect(JSON.stringify(LsParams)).toBe(
      '{"type":"object","properties":{"path":{"type":"string","description":"Folder to list; the working directory by default"},"limit":{"type":"integer","minimum":1,"description":"Maximum entries (default 500)"}}}',
    );
  });

  test("a type with no TypeBox kind is refused", () => {
    expect(() => withTypeBoxKinds({ type: "null" })).toThrow("no TypeBox kind for type null");
  });
});
