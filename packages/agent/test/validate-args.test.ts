import { describe, expect, test } from "bun:test";
import Type from "typebox";
import { validateToolArgs } from "../src/index.ts";

const schema = Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer({ minimum: 1 })) });

describe("validateToolArgs", () => {
  test("valid arguments pass, with numeric strings coerced", () => {
    expect(validateToolArgs("t", schema, { path: "a", limit: "5" })).toEqual({
      ok: true,
      args: { path: "a", limit: 5 },
    });
  });

  test("failures list each failing path and echo what was received", () => {
    const result = validateToolArgs("t", schema, { limit: 0 });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toStartWith('Invalid arguments for tool "t":');
    expect(result.message).toContain("/limit: must be >= 1");
    expect(result.message).toContain("path");
    expect(result.message).toEndWith('Received: {"limit":0}');
  });

  test("the caller's arguments object is never mutated", () => {
    const args = { path: "a", limit: "2" };
    validateToolArgs("t", schema, args);
    expect(args.limit).toBe("2");
  });
});
