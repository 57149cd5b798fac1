import { describe, expect, test } from "bun:test";
import type { ItemToolCallRequestApprovalParams } from "@knightcode/app-server-protocol";
import { approvalAnswer, approvalChoices } from "../src/interactive/approval-prompt.ts";

const request = (
  decisions: ItemToolCallRequestApprovalParams["decisions"],
): ItemToolCallRequestApprovalParams => ({
  threadId: "t",
  turnId: "u",
  itemId: "i",
  toolName: "bash",
  input: { command: "git status" },
  decisions,
  prefix: "git status",
});

describe("the approval prompt's answers", () => {
  test("Esc declines without a message: the one answer that is safe whatever the server offered", () => {
    // an unoffered decline counts as a decline (spec), while the first offered decision may be an accept
    expect(approvalAnswer({ cancelled: true })).toEqual({ decision: "decline" });
  });

  test("a chosen decline carries its trimmed message, cut to the protocol's bound; an empty one carries none", () => {
    expect(approvalAnswer({ value: "decline", text: "  use the local file  " })).toEqual({
      decision: "decline",
      message: "use the local file",
    });
    expect(approvalAnswer({ value: "decline", text: "x".repeat(5_000) })).toEqual({
      decision: "decline",
      message: "x".repeat(4_000),
    });
    expect(approvalAnswer({ value: "decline", text: "   " })).toEqual({ decision: "decline" });
  });

  test("the choices are exactly the offered decisions, in the server's order, the prefix named", () => {
    const choices = approvalChoices(request(["acceptPrefixForSession", "accept", "decline"]));
    expect(choices.map((c) => c.value)).toEqual(["acceptPrefixForSession", "accept", "decline"]);
    expect(choices[0]!.label).toContain("`git status`");
  });
});
