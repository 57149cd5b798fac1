import { describe, expect, test } from "bun:test";
import {
  applyDecision,
  emptyGrants,
  gateToolCall,
  isMcpToolName,
  MCP_TOOL_PREFIX,
  modeVerdict,
} from "@knightcode/approvals";

const cwd = "/project";

describe("MCP tools at the gate", () => {
  test("an MCP tool asks in ask and autoEdit and is allowed in fullAccess, even one named like a read-only tool", () => {
    for (const name of ["mcp__everything__echo", "mcp__files__read", "mcp__x__bash"]) {
      expect([
        modeVerdict("ask", name),
        modeVerdict("autoEdit", name),
        modeVerdict("fullAccess", name),
      ]).toEqual(["ask", "ask", "allow"]);
    }
  });

  test("acceptForSession is offered (it is not a shell) and remembers that one tool for the load", () => {
    const verdict = gateToolCall({
      mode: "ask",
      toolName: "mcp__everything__echo",
      input: { message: "hi" },
      cwd,
      grants: emptyGrants(),
    });
    if (verdict.action !== "ask") throw new Error("expected ask");
    expect(verdict.request.decisions).toEqual(["accept", "acceptForSession", "decline", "cancel"]);
    const applied = applyDecision(verdict.request, { decision: "acceptForSession" }, emptyGrants());
    expect(applied.outcome).toBe("run");
    const again = (toolName: string) =>
      gateToolCall({ mode: "autoEdit", toolName, input: {}, cwd, grants: applied.grants }).action;
    expect(again("mcp__everything__echo")).toBe("allow");
    expect(again("mcp__everything__get-sum")).toBe("ask");
  });

  test("the prefix names MCP tools and nothing else", () => {
    expect(MCP_TOOL_PREFIX).toBe("mcp__");
    expect(isMcpToolName("mcp__a__b")).toBe(true);
    expect(isMcpToolName("read")).toBe(false);
    expect(isMcpToolName("mcp_a")).toBe(false);
  });
});
