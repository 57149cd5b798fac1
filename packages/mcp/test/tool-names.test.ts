import { describe, expect, test } from "bun:test";
import { MAX_TOOL_NAME_LENGTH, mcpToolName, uniqueToolNames } from "../src/index.ts";

describe("MCP tool names", () => {
  test("a tool is mcp__<server>__<tool>", () => {
    expect(mcpToolName("everything", "get-sum")).toBe("mcp__everything__get-sum");
  });

  test("characters providers refuse become underscores", () => {
    expect(mcpToolName("My Editor's Server", "files.read/v2")).toBe("mcp__My_Editor_s_Server__files_read_v2");
  });

  test("an over-long name is cut to 64 characters with a hash that keeps it unique", () => {
    const a = mcpToolName("server", `${"x".repeat(80)}a`);
    const b = mcpToolName("server", `${"x".repeat(80)}b`);
    expect(a.length).toBe(MAX_TOOL_NAME_LENGTH);
    expect(b.length).toBe(MAX_TOOL_NAME_LENGTH);
    expect(a).not.toBe(b);
    expect(a.startsWith("mcp__server__xxx")).toBe(true);
  });

  test("two tools that sanitize alike still get different names", () => {
    const names = uniqueToolNames("s", ["a.b", "a_b"]);
    expect(names.get("a.b")).toBe("mcp__s__a_b");
    expect(names.get("a_b")).not.toBe("mcp__s__a_b");
    expect(names.get("a_b")).toMatch(/^mcp__s__a_b_[0-9a-f]{8}$/);
  });
});
