import { describe, expect, test } from "bun:test";
import { finalStatus, toolDiffs, toolKind, toolLocations, toolTitle } from "../src/tool-calls.ts";

describe("tool calls", () => {
  test("kinds follow what each tool does; unknown tools are other", () => {
    expect(["read", "ls", "write", "edit", "bash", "grep", "find", "mcp_x"].map(toolKind)).toEqual([
      "read",
      "read",
      "edit",
      "edit",
      "execute",
      "search",
      "search",
      "other",
    ]);
  });

  test("titles name the file or command on one bounded line", () => {
    expect(toolTitle("read", { path: "a.ts" })).toBe("Read a.ts");
    expect(toolTitle("bash", { command: "echo a\necho b" })).toBe("echo a echo b");
    expect(toolTitle("bash", { command: "x".repeat(500) }).length).toBe(200);
    expect(toolTitle("grep", { pattern: "TODO", path: "src" })).toBe("grep TODO in src");
    expect(toolTitle("ls", {})).toBe("List .");
  });

  test("locations are absolute against the thread's cwd; a read with an offset names its line", () => {
    expect(toolLocations("read", "/p", { path: "a.ts", offset: 10 })).toEqual([
      { path: "/p/a.ts", line: 10 },
    ]);
    expect(toolLocations("write", "/p", { path: "/abs/b.ts" })).toEqual([{ path: "/abs/b.ts" }]);
    expect(toolLocations("ls", "/p", {})).toEqual([{ path: "/p" }]);
    expect(toolLocations("bash", "/p", { command: "ls" })).toEqual([]);
  });

  test("a write diffs the whole file; an edit each replacement; an unreadable old text gives no diff", () => {
    expect(toolDiffs("write", "/p", { path: "n.txt", content: "new" }, null)).toEqual([
      { type: "diff", path: "/p/n.txt", oldText: null, newText: "new" },
    ]);
    expect(toolDiffs("write", "/p", { path: "n.txt", content: "new" }, undefined)).toEqual([]);
    expect(
      toolDiffs(
        "edit",
        "/p",
        {
          path: "e.txt",
          edits: [
            { oldText: "a", newText: "b" },
            { oldText: "c", newText: "d" },
          ],
        },
        undefined,
      ),
    ).toEqual([
      { type: "diff", path: "/p/e.txt", oldText: "a", newText: "b" },
      { type: "diff", path: "/p/e.txt", oldText: "c", newText: "d" },
    ]);
    expect(toolDiffs("bash", "/p", { command: "x" }, null)).toEqual([]);
  });

  test("declined and failed calls are failed for the editor", () => {
    expect(["completed", "failed", "declined", "inProgress"].map((s) => finalStatus(s as never))).toEqual([
      "completed",
      "failed",
      "failed",
      "in_progress",
    ]);
  });
});
