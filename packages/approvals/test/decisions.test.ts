import { describe, expect, test } from "bun:test";
import {
  type ApprovalRequest,
  applyDecision,
  characterCount,
  emptyGrants,
  MAX_DECLINE_MESSAGE_CHARS,
  validateApprovalReply,
} from "@knightcode/approvals";

const editRequest: ApprovalRequest = {
  toolName: "edit",
  decisions: ["accept", "acceptForSession", "decline", "cancel"],
};
const shellRequest: ApprovalRequest = {
  toolName: "bash",
  decisions: ["accept", "acceptPrefixForSession", "decline", "cancel"],
  prefix: ["git", "status"],
  shellKind: "bash",
};
const bareShellRequest: ApprovalRequest = {
  toolName: "bash",
  decisions: ["accept", "decline", "cancel"],
  shellKind: "bash",
};

describe("applyDecision", () => {
  test("accept runs the call and grants nothing", () => {
    const grants = emptyGrants();
    const result = applyDecision(editRequest, { decision: "accept" }, grants);
    expect(result.outcome).toBe("run");
    expect(result.grants).toBe(grants);
  });

  test("acceptForSession runs and remembers the tool name", () => {
    const result = applyDecision(editRequest, { decision: "acceptForSession" }, emptyGrants());
    expect(result).toMatchObject({ outcome: "run", decision: "acceptForSession" });
    expect(result.grants.tools).toEqual(["edit"]);
  });

  test("acceptPrefixForSession runs and remembers the offered prefix for that shell", () => {
    const result = applyDecision(shellRequest, { decision: "acceptPrefixForSession" }, emptyGrants());
    expect(result.outcome).toBe("run");
    expect(result.grants.prefixes).toEqual([{ shell: "bash", prefix: ["git", "status"] }]);
    expect(result.grants.tools).toEqual([]);
  });

  test("an unoffered decision is a decline and never grants", () => {
    const grants = emptyGrants();
    for (const [request, decision] of [
      [shellRequest, "acceptForSession"],
      [bareShellRequest, "acceptPrefixForSession"],
      [editRequest, "acceptPrefixForSession"],
      [editRequest, "yolo"],
      [editRequest, ""],
    ] as const) {
      const result = applyDecision(request, { decision }, grants);
      expect(result.outcome).toBe("decline");
      expect(result.decision).toBe("decline");
      expect(result.grants).toBe(grants);
      expect(result.rejected?.code).toBe("unoffered");
    }
  });

  test("a shell request that wrongly offers acceptForSession still never grants the shell by name", () => {
    const forged: ApprovalRequest = {
      ...shellRequest,
      decisions: ["accept", "acceptForSession", "decline", "cancel"],
    };
    const result = applyDecision(forged, { decision: "acceptForSession" }, emptyGrants());
    expect(result.outcome).toBe("decline");
    expect(result.grants.tools).toEqual([]);
  });

  test("a request for a shell tool without shellKind still never grants the shell by name", () => {
    for (const toolName of ["bash", "Bash", "powershell", "pwsh"]) {
      const forged: ApprovalRequest = {
        toolName,
        decisions: ["accept", "acceptForSession", "decline", "cancel"],
      };
      const result = applyDecision(forged, { decision: "acceptForSession" }, emptyGrants());
      expect(result).toMatchObject({ outcome: "decline", rejected: { code: "unoffered" } });
      expect(result.grants.tools).toEqual([]);
    }
  });

  test("acceptPrefixForSession without a prefix on the request never grants", () => {
    const forged: ApprovalRequest = { ...bareShellRequest, decisions: ["accept", "acceptPrefixForSession"] };
    const result = applyDecision(forged, { decision: "acceptPrefixForSession" }, emptyGrants());
    expect(result.outcome).toBe("decline");
    expect(result.grants.prefixes).toEqual([]);
  });

  test("cancel always blocks, even when not in the offered list", () => {
    expect(applyDecision(editRequest, { decision: "cancel" }, emptyGrants()).outcome).toBe("cancel");
    const noCancel: ApprovalRequest = { toolName: "edit", decisions: ["accept"] };
    const result = applyDecision(noCancel, { decision: "cancel" }, emptyGrants());
    expect(result.outcome).toBe("cancel");
    expect(result.grants.tools).toEqual([]);
  });

  test("decline carries the user's message to the agent", () => {
    const result = applyDecision(
      editRequest,
      { decision: "decline", message: "Use the project-local file instead" },
      emptyGrants(),
    );
    expect(result).toMatchObject({ outcome: "decline", message: "Use the project-local file instead" });
  });

  test("decline without a message, or with an empty one, has no message", () => {
    expect(applyDecision(editRequest, { decision: "decline" }, emptyGrants()).message).toBeUndefined();
    expect(
      applyDecision(editRequest, { decision: "decline", message: "" }, emptyGrants()).message,
    ).toBeUndefined();
  });

  test("a decline message of exactly 4,000 characters is relayed whole", () => {
    const message = "x".repeat(MAX_DECLINE_MESSAGE_CHARS);
    expect(applyDecision(editRequest, { decision: "decline", message }, emptyGrants()).message).toBe(message);
  });

  test("4,000 characters are counted as code points, so 4,000 emoji fit", () => {
    const message = "\u{1f600}".repeat(MAX_DECLINE_MESSAGE_CHARS);
    expect(characterCount(message)).toBe(MAX_DECLINE_MESSAGE_CHARS);
    expect(applyDecision(editRequest, { decision: "decline", message }, emptyGrants()).message).toBe(message);
  });

  test("a longer decline message makes the reply invalid: blocked as decline, message dropped", () => {
    const message = "x".repeat(MAX_DECLINE_MESSAGE_CHARS + 1);
    const result = applyDecision(editRequest, { decision: "decline", message }, emptyGrants());
    expect(result.outcome).toBe("decline");
    expect(result.message).toBeUndefined();
    expect(result.rejected?.code).toBe("invalidParams");
  });

  test("an over-long message on an accept blocks the call instead of running it", () => {
    const message = "x".repeat(MAX_DECLINE_MESSAGE_CHARS + 1);
    const result = applyDecision(editRequest, { decision: "acceptForSession", message }, emptyGrants());
    expect(result.outcome).toBe("decline");
    expect(result.grants.tools).toEqual([]);
  });

  test("malformed replies are declines with invalidParams", () => {
    for (const raw of [
      null,
      undefined,
      "accept",
      42,
      [],
      {},
      { decision: 1 },
      { decision: "decline", message: 5 },
    ]) {
      const result = applyDecision(editRequest, raw, emptyGrants());
      expect(result.outcome).toBe("decline");
      expect(result.rejected?.code).toBe("invalidParams");
    }
  });
});

describe("validateApprovalReply", () => {
  test("accepts a decision with an optional message and treats null message as absent", () => {
    expect(validateApprovalReply({ decision: "accept" })).toEqual({
      ok: true,
      reply: { decision: "accept" },
    });
    expect(validateApprovalReply({ decision: "decline", message: null })).toEqual({
      ok: true,
      reply: { decision: "decline" },
    });
  });

  test("rejects a 4,001-character message with invalidParams", () => {
    const result = validateApprovalReply({ decision: "decline", message: "y".repeat(4001) });
    expect(result).toMatchObject({ ok: false, code: "invalidParams" });
  });
});
