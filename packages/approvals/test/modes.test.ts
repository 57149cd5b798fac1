import { describe, expect, test } from "bun:test";
import {
  ALWAYS_ALLOWED_TOOLS,
  APPROVAL_MODES,
  type ApprovalMode,
  defaultApprovalMode,
  isApprovalMode,
  modeVerdict,
  restoreApprovalMode,
  toolClass,
} from "@knightcode/approvals";

// The spec's table, row by row: [tool, ask, autoEdit, fullAccess].
const TABLE: [string, "allow" | "ask", "allow" | "ask", "allow" | "ask"][] = [
  ["read", "allow", "allow", "allow"],
  ["grep", "allow", "allow", "allow"],
  ["find", "allow", "allow", "allow"],
  ["ls", "allow", "allow", "allow"],
  ["ask_user", "allow", "allow", "allow"],
  ["submit_plan", "allow", "allow", "allow"],
  ["edit", "ask", "allow", "allow"],
  ["write", "ask", "allow", "allow"],
  ["bash", "ask", "ask", "allow"],
  ["powershell", "ask", "ask", "allow"],
  ["my_extension_tool", "ask", "ask", "allow"],
  ["mcp__github__create_issue", "ask", "ask", "allow"],
];

describe("mode table", () => {
  for (const [tool, ask, autoEdit, fullAccess] of TABLE) {
    test(`${tool}: ask=${ask} autoEdit=${autoEdit} fullAccess=${fullAccess}`, () => {
      expect(modeVerdict("ask", tool)).toBe(ask);
      expect(modeVerdict("autoEdit", tool)).toBe(autoEdit);
      expect(modeVerdict("fullAccess", tool)).toBe(fullAccess);
    });
  }

  test("tool names match exactly: case and look-alikes are other tools", () => {
    expect(toolClass("Read")).toBe("other");
    expect(toolClass("read ")).toBe("other");
    expect(toolClass("EDIT")).toBe("other");
    expect(modeVerdict("autoEdit", "Edit")).toBe("ask");
  });

  test("the always-allowed list is the spec's six tools", () => {
    expect([...ALWAYS_ALLOWED_TOOLS].sort()).toEqual([
      "ask_user",
      "find",
      "grep",
      "ls",
      "read",
      "submit_plan",
    ]);
  });
});

describe("stored mode", () => {
  test("valid modes restore as themselves", () => {
    for (const mode of APPROVAL_MODES) expect(restoreApprovalMode(mode)).toBe(mode);
  });

  test("invalid stored state restores as ask", () => {
    for (const stored of [
      undefined,
      null,
      "",
      "full",
      "FULLACCESS",
      "fullaccess",
      1,
      {},
      ["ask"],
      "auto_edit",
    ]) {
      expect(restoreApprovalMode(stored)).toBe("ask");
      expect(isApprovalMode(stored)).toBe(false);
    }
  });

  test("desktop threads default to ask, terminal threads to fullAccess", () => {
    expect(defaultApprovalMode("desktop")).toBe("ask" satisfies ApprovalMode);
    expect(defaultApprovalMode("terminal")).toBe("fullAccess");
  });
});
