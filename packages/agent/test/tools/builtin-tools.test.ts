import { describe, expect, test } from "bun:test";
import { BUILTIN_TOOL_NAMES, createBuiltinTools } from "../../src/index.ts";

describe("createBuiltinTools", () => {
  test("builds all nine tools with the argument shapes the notes fix", () => {
    const tools = createBuiltinTools({ cwd: "/tmp" });
    expect(tools.map((t) => t.name)).toEqual([...BUILTIN_TOOL_NAMES]);
    const shape = Object.fromEntries(
      tools.map((t) => {
        const schema = t.parameters as { properties: Record<string, unknown>; required?: string[] };
        return [
          t.name,
          { props: Object.keys(schema.properties).sort(), required: [...(schema.required ?? [])].sort() },
        ];
      }),
    );
    expect(shape).toEqual({
      read: { props: ["limit", "offset", "path"], required: ["path"] },
      write: { props: ["content", "path"], required: ["content", "path"] },
      edit: { props: ["edits", "path"], required: ["edits", "path"] },
      bash: { props: ["command", "timeout"], required: ["command"] },
      grep: { props: ["glob", "ignoreCase", "limit", "path", "pattern"], required: ["pattern"] },
      find: { props: ["limit", "path", "pattern"], required: ["pattern"] },
      ls: { props: ["limit", "path"], required: [] },
      ask_user: { props: ["options", "question"], required: ["question"] },
      submit_plan: { props: ["plan"], required: ["plan"] },
    });
  });

  test("only builds a subset", () => {
    expect(createBuiltinTools({ cwd: "/tmp", only: ["read", "ls"] }).map((t) => t.name)).toEqual([
      "read",
      "ls",
    ]);
  });
});
