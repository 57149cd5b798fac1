import { describe, expect, test } from "bun:test";
import { decisionFor, permissionOptions } from "../src/permissions.ts";

describe("permissions", () => {
  test("options come from the offered decisions only, with session and prefix grants as allow_always", () => {
    expect(
      permissionOptions({
        toolName: "bash",
        decisions: ["accept", "acceptPrefixForSession", "decline", "cancel"],
        prefix: "git status",
      }),
    ).toEqual([
      { optionId: "accept", name: "Allow once", kind: "allow_once" },
      {
        optionId: "acceptPrefixForSession",
        name: "Always allow `git status` commands in this session",
        kind: "allow_always",
      },
      { optionId: "decline", name: "Reject", kind: "reject_once" },
    ]);
    expect(
      permissionOptions({ toolName: "write", decisions: ["accept", "acceptForSession"] }).map((o) => o.kind),
    ).toEqual(["allow_once", "allow_always"]);
  });

  test("a cancelled outcome, an unoffered option or an unknown one declines", () => {
    const offer = { toolName: "write", decisions: ["accept", "decline"] as const };
    expect(decisionFor({ outcome: "cancelled" }, { ...offer, decisions: [...offer.decisions] })).toBe(
      "decline",
    );
    expect(
      decisionFor(
        { outcome: "selected", optionId: "acceptForSession" },
        { ...offer, decisions: [...offer.decisions] },
      ),
    ).toBe("decline");
    expect(
      decisionFor(
        { outcome: "selected", optionId: "whatever" },
        { ...offer, decisions: [...offer.decisions] },
      ),
    ).toBe("decline");
    expect(
      decisionFor({ outcome: "selected", optionId: "accept" }, { ...offer, decisions: [...offer.decisions] }),
    ).toBe("accept");
    expect(
      decisionFor(
        { outcome: "selected", optionId: "cancel" },
        { toolName: "x", decisions: ["cancel", "accept"] },
      ),
    ).toBe("decline");
  });
});
