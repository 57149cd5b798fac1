import { describe, expect, test } from "bun:test";
import {
  classifierRestriction,
  commandOf,
  emptyGrants,
  type GatedCall,
  gateToolCall,
  planModeRestriction,
} from "@knightcode/approvals";

const call = (toolName: string, input: unknown, shellKind: GatedCall["shellKind"] = null): GatedCall => ({
  toolName,
  input,
  mode: "fullAccess",
  cwd: "/tmp",
  shellKind,
});

describe("planModeRestriction", () => {
  const plan = planModeRestriction();

  test("lets read-only tools through", () => {
    for (const tool of ["read", "grep", "find", "ls", "ask_user", "submit_plan"])
      expect(plan(call(tool, {}))).toBeUndefined();
  });

  test("blocks edits, writes and other tools", () => {
    for (const tool of ["edit", "write", "my_tool"]) expect(plan(call(tool, {}))?.action).toBe("block");
  });

  test("lets recognized read-only shell commands through and blocks the rest", () => {
    expect(plan(call("bash", { command: "git status" }, "bash"))).toBeUndefined();
    expect(plan(call("bash", { command: "rg TODO src" }, "bash"))).toBeUndefined();
    for (const command of ["git branch -D main", "npm test", "rm -rf x", "git status; rm x", "make"]) {
      expect(plan(call("bash", { command }, "bash"))).toEqual({
        action: "block",
        reason: "Plan mode allows only read-only commands",
      });
    }
    expect(plan(call("bash", {}, "bash"))?.action).toBe("block");
  });

  test("read-only commands with a flag that writes files are blocked (tree -R, file -C)", () => {
    expect(plan(call("bash", { command: "tree -L 2" }, "bash"))).toBeUndefined();
    for (const command of ["tree -R", "tree -o out.txt", "file -C -m magic", "file --compile"]) {
      expect(plan(call("bash", { command }, "bash"))?.action).toBe("block");
    }
  });

  test("blocks even in fullAccess when run through the gate", () => {
    const result = gateToolCall({
      mode: "fullAccess",
      toolName: "write",
      input: { path: "a" },
      cwd: "/tmp",
      grants: emptyGrants(),
      restrictions: [plan],
    });
    expect(result).toEqual({ action: "block", reason: "Plan mode does not allow the write tool" });
  });
});

describe("classifierRestriction", () => {
  test("passes the classifier's verdict through", () => {
    const r = classifierRestriction((c) =>
      c.toolName === "bash" ? { action: "ask", reason: "shell" } : undefined,
    );
    expect(r(call("bash", {}, "bash"))).toEqual({ action: "ask", reason: "shell" });
    expect(r(call("read", {}))).toBeUndefined();
  });

  test("a classifier that throws blocks", () => {
    const r = classifierRestriction(() => {
      throw new Error("timeout");
    });
    expect(r(call("read", {}))).toEqual({ action: "block", reason: "Safety check failed: timeout" });
  });
});

describe("commandOf", () => {
  test("reads a string command and nothing else", () => {
    expect(commandOf({ command: "ls" })).toBe("ls");
    expect(commandOf({ command: ["ls"] })).toBeNull();
    expect(commandOf("ls")).toBeNull();
    expect(commandOf(null)).toBeNull();
  });
});
