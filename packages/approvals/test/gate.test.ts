import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ApprovalMode,
  applyDecision,
  emptyGrants,
  type GateResult,
  gateToolCall,
  type PreGateRestriction,
  type SessionGrants,
  shellKindOf,
  withPrefixGrant,
  withToolGrant,
} from "@knightcode/approvals";

let root = "";
let cwd = "";

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "approvals-gate-")));
  cwd = join(root, "project");
  mkdirSync(join(cwd, "src"), { recursive: true });
  mkdirSync(join(root, "outside"));
  symlinkSync(join(root, "outside"), join(cwd, "escape"));
  symlinkSync(join(root, "outside", "not-yet"), join(cwd, "dangling-file"));
  symlinkSync(join(root, "outside", "no-dir"), join(cwd, "dangling-dir"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function gate(
  mode: ApprovalMode,
  toolName: string,
  input: unknown,
  grants: SessionGrants = emptyGrants(),
): GateResult {
  return gateToolCall({ mode, toolName, input, cwd, grants });
}

describe("gateToolCall: mode table", () => {
  test("read-only tools run in every mode", () => {
    for (const mode of ["ask", "autoEdit", "fullAccess"] as const) {
      for (const tool of ["read", "grep", "find", "ls", "ask_user", "submit_plan"]) {
        expect(gate(mode, tool, {})).toEqual({ action: "allow" });
      }
    }
  });

  test("edit and write ask in ask mode and run in autoEdit and fullAccess", () => {
    for (const tool of ["edit", "write"]) {
      expect(gate("ask", tool, { path: "src/a.ts" }).action).toBe("ask");
      expect(gate("autoEdit", tool, { path: "src/a.ts" })).toEqual({ action: "allow" });
      expect(gate("fullAccess", tool, { path: "src/a.ts" })).toEqual({ action: "allow" });
    }
  });

  test("shell, extension and MCP tools ask unless fullAccess", () => {
    for (const tool of ["bash", "powershell", "my_tool", "mcp__x__y"]) {
      expect(gate("ask", tool, { command: "git status" }).action).toBe("ask");
      expect(gate("autoEdit", tool, { command: "git status" }).action).toBe("ask");
      expect(gate("fullAccess", tool, { command: "git status" })).toEqual({ action: "allow" });
    }
  });
});

describe("gateToolCall: requests", () => {
  test("a non-shell tool is offered acceptForSession", () => {
    const result = gate("ask", "my_tool", {});
    expect(result).toEqual({
      action: "ask",
      request: { toolName: "my_tool", decisions: ["accept", "acceptForSession", "decline", "cancel"] },
    });
  });

  test("a recognized shell command is offered its prefix, never acceptForSession", () => {
    const result = gate("ask", "bash", { command: "git status --short" });
    expect(result).toEqual({
      action: "ask",
      request: {
        toolName: "bash",
        decisions: ["accept", "acceptPrefixForSession", "decline", "cancel"],
        prefix: ["git", "status"],
        shellKind: "bash",
      },
    });
  });

  test("an unrecognized or unsafe shell command gets no prefix and no session choice", () => {
    for (const command of ["git status; rm x", "rm -rf /", "bash -c 'git status'"]) {
      const result = gate("ask", "bash", { command });
      expect(result).toEqual({
        action: "ask",
        request: { toolName: "bash", decisions: ["accept", "decline", "cancel"], shellKind: "bash" },
      });
    }
  });

  test("a shell call without a string command is asked without a prefix", () => {
    for (const input of [undefined, null, {}, { command: 5 }]) {
      const result = gate("ask", "bash", input);
      expect(result.action === "ask" && result.request.decisions).toEqual(["accept", "decline", "cancel"]);
    }
  });

  test("acceptForSession is never offered for bash or PowerShell in any mode or input", () => {
    for (const tool of ["bash", "powershell", "pwsh"]) {
      for (const mode of ["ask", "autoEdit"] as const) {
        for (const command of ["git status", "ls", "x", ""]) {
          const result = gate(mode, tool, { command });
          expect(result.action).toBe("ask");
          if (result.action === "ask") expect(result.request.decisions).not.toContain("acceptForSession");
        }
      }
    }
  });

  test("shell tool names are matched case-insensitively and never offered acceptForSession", () => {
    for (const tool of ["Bash", "BASH", "PowerShell", "PWSH"]) {
      const result = gate("ask", tool, { command: "rm -rf /" });
      expect(result.action === "ask" && result.request.decisions).toEqual(["accept", "decline", "cancel"]);
      expect(result.action === "ask" && result.request.shellKind).toBe(shellKindOf(tool) ?? undefined);
    }
    expect(shellKindOf("PowerShell")).toBe("powershell");
  });

  test("a shellKind of null cannot turn bash into a tool that can be granted by name", () => {
    const result = gateToolCall({
      mode: "ask",
      toolName: "bash",
      input: { command: "rm -rf /" },
      cwd,
      grants: withToolGrant(emptyGrants(), "bash"),
      shellKind: null,
    });
    expect(result).toEqual({
      action: "ask",
      request: { toolName: "bash", decisions: ["accept", "decline", "cancel"], shellKind: "bash" },
    });
  });

  test("PowerShell tools use the PowerShell analyser", () => {
    const result = gate("ask", "pwsh", { command: "Get-ChildItem src" });
    expect(result.action === "ask" && result.request.prefix).toEqual(["Get-ChildItem"]);
    expect(result.action === "ask" && result.request.shellKind).toBe("powershell");
    expect(shellKindOf("read")).toBeNull();
  });

  test("an extension's shell tool can declare its dialect", () => {
    const result = gateToolCall({
      mode: "ask",
      toolName: "remote_shell",
      input: { command: "git log" },
      cwd,
      grants: emptyGrants(),
      shellKind: "bash",
    });
    expect(result.action === "ask" && result.request.decisions).toEqual([
      "accept",
      "acceptPrefixForSession",
      "decline",
      "cancel",
    ]);
  });
});

describe("gateToolCall: session grants", () => {
  test("a tool grant lets the same tool run later in this load, and no other tool", () => {
    const grants = withToolGrant(emptyGrants(), "my_tool");
    expect(gate("ask", "my_tool", {}, grants)).toEqual({ action: "allow" });
    expect(gate("ask", "other_tool", {}, grants).action).toBe("ask");
  });

  test("a tool grant for a shell's name never lets the shell run", () => {
    const grants = withToolGrant(emptyGrants(), "bash");
    expect(gate("ask", "bash", { command: "rm -rf /" }, grants).action).toBe("ask");
  });

  test("a prefix grant covers the same prefix, not a different or unsafe command", () => {
    const grants = withPrefixGrant(emptyGrants(), { shell: "bash", prefix: ["git", "status"] });
    expect(gate("ask", "bash", { command: "git status --short" }, grants)).toEqual({ action: "allow" });
    expect(gate("autoEdit", "bash", { command: "git status -sb" }, grants)).toEqual({ action: "allow" });
    expect(gate("ask", "bash", { command: "git reset --hard" }, grants).action).toBe("ask");
    expect(gate("ask", "bash", { command: "git status; rm -rf ~" }, grants).action).toBe("ask");
    expect(gate("ask", "powershell", { command: "git status" }, grants).action).toBe("ask");
  });

  test("the whole loop: accepting a prefix lets the next matching command run", () => {
    const first = gate("ask", "bash", { command: "npm test" });
    if (first.action !== "ask") throw new Error("expected ask");
    const { grants } = applyDecision(first.request, { decision: "acceptPrefixForSession" }, emptyGrants());
    expect(gate("ask", "bash", { command: "npm test -- --watch" }, grants)).toEqual({ action: "allow" });
    expect(gate("ask", "bash", { command: "npm run deploy" }, grants).action).toBe("ask");
  });
});

describe("gateToolCall: writes outside the workspace", () => {
  const outsideCases: [string, string][] = [
    ["an absolute path elsewhere", "/etc/passwd"],
    ["a .. escape", "../outside/x.txt"],
    ["a .. escape hidden in the middle", "src/../../outside/x.txt"],
    ["a symlink out of the project", "escape/x.txt"],
    ["a new file under a symlink out of the project", "escape/new/dir/x.txt"],
    ["a symlink then .. (resolved physically, not lexically)", "escape/../project-sibling.txt"],
  ];

  for (const [name, path] of outsideCases) {
    test(`${name} asks with a reason, even in autoEdit`, () => {
      for (const mode of ["ask", "autoEdit"] as const) {
        const result = gate(mode, "write", { path });
        expect(result.action).toBe("ask");
        if (result.action !== "ask") continue;
        expect(result.request.reason).toBe(`Writes outside the workspace: ${path}`);
        expect(result.request.decisions).toEqual(["accept", "decline", "cancel"]);
      }
    });
  }

  test("paths inside the project, including a .. that stays inside, run in autoEdit", () => {
    for (const path of ["src/a.ts", "./src/../b.ts", join(cwd, "src", "c.ts"), "new/deep/file.ts"]) {
      expect(gate("autoEdit", "edit", { path })).toEqual({ action: "allow" });
    }
  });

  test("an edit tool grant does not cover writes outside the workspace", () => {
    const grants = withToolGrant(emptyGrants(), "write");
    expect(gate("ask", "write", { path: "src/a.ts" }, grants)).toEqual({ action: "allow" });
    expect(gate("ask", "write", { path: "../outside/x" }, grants).action).toBe("ask");
  });

  test("fullAccess writes anywhere without asking", () => {
    expect(gate("fullAccess", "write", { path: "/etc/x" })).toEqual({ action: "allow" });
  });

  test("the edit tools' own readings of a path (~, a leading @, padding) cannot slip outside", () => {
    for (const path of ["~/.bashrc", "~", "@/etc/passwd", " /etc/passwd", "/etc/passwd\n", "@../outside/x"]) {
      const result = gate("autoEdit", "write", { path });
      expect(result.action).toBe("ask");
      expect(result.action === "ask" && result.request.reason).toBe(`Writes outside the workspace: ${path}`);
    }
  });

  test("with the home dir known, a ~ path is judged where it really lands", () => {
    const withHome = (path: string) =>
      gateToolCall({
        mode: "autoEdit",
        toolName: "write",
        input: { path },
        cwd,
        grants: emptyGrants(),
        homeDir: root,
      });
    expect(withHome("~/project/src/a.ts")).toEqual({ action: "allow" });
    expect(withHome("~/outside/a.ts").action).toBe("ask");
  });

  test("a dangling symlink in the project, as the file or a folder on the way, asks", () => {
    for (const path of ["dangling-file", "dangling-dir/x.txt", "src/../dangling-file"]) {
      const result = gate("autoEdit", "write", { path });
      expect(result.action).toBe("ask");
      expect(result.action === "ask" && result.request.reason).toBe(`Writes outside the workspace: ${path}`);
    }
  });

  test("an edit without a usable path asks with a reason in autoEdit", () => {
    const result = gate("autoEdit", "edit", { path: 42 });
    expect(result.action === "ask" && result.request.reason).toBe("The target path could not be determined");
  });
});

describe("gateToolCall: restrictions run first", () => {
  const blockAll: PreGateRestriction = () => ({ action: "block", reason: "no" });
  const askAll: PreGateRestriction = () => ({ action: "ask", reason: "Looks risky" });

  test("a blocking restriction wins over fullAccess and over grants", () => {
    const grants = withToolGrant(emptyGrants(), "my_tool");
    for (const mode of ["ask", "autoEdit", "fullAccess"] as const) {
      const result = gateToolCall({
        mode,
        toolName: "my_tool",
        input: {},
        cwd,
        grants,
        restrictions: [blockAll],
      });
      expect(result).toEqual({ action: "block", reason: "no" });
    }
  });

  test("an asking restriction forces a question in fullAccess and offers no session grant", () => {
    const grants = withPrefixGrant(emptyGrants(), { shell: "bash", prefix: ["git", "status"] });
    const result = gateToolCall({
      mode: "fullAccess",
      toolName: "bash",
      input: { command: "git status" },
      cwd,
      grants,
      restrictions: [askAll],
    });
    expect(result).toEqual({
      action: "ask",
      request: {
        toolName: "bash",
        decisions: ["accept", "decline", "cancel"],
        reason: "Looks risky",
        shellKind: "bash",
      },
    });
  });

  test("a later block still wins over an earlier ask", () => {
    const result = gateToolCall({
      mode: "ask",
      toolName: "read",
      input: {},
      cwd,
      grants: emptyGrants(),
      restrictions: [askAll, blockAll],
    });
    expect(result).toEqual({ action: "block", reason: "no" });
  });

  test("a restriction that throws blocks the call", () => {
    const broken: PreGateRestriction = () => {
      throw new Error("classifier offline");
    };
    const result = gateToolCall({
      mode: "fullAccess",
      toolName: "read",
      input: {},
      cwd,
      grants: emptyGrants(),
      restrictions: [broken],
    });
    expect(result).toEqual({ action: "block", reason: "Restriction failed: classifier offline" });
  });
});
