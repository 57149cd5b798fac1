import { describe, expect, test } from "bun:test";
import { RequestError } from "@agentclientprotocol/sdk";
import { AppServerError } from "@knightcode/app-server-protocol";
import { toRequestError, turnFailed } from "../src/errors.ts";

describe("error mapping", () => {
  test("server errors map onto ACP codes", () => {
    expect(toRequestError(new AppServerError("invalidParams", "bad", { errors: [] })).code).toBe(-32602);
    const noModel = toRequestError(new AppServerError("invalidParams", "no model", { reason: "noModel" }));
    expect(noModel.code).toBe(-32000);
    expect(noModel.message).toContain("ANTHROPIC_API_KEY");
    expect(toRequestError(new AppServerError("threadNotFound", "gone"), "s-1")).toMatchObject({
      code: -32002,
      data: { sessionId: "s-1" },
    });
    expect(toRequestError(new AppServerError("turnInProgress", "busy"))).toMatchObject({
      code: -32603,
      data: { code: "turnInProgress" },
    });
    expect(toRequestError(new Error("boom")).code).toBe(-32603);
    const passed = RequestError.invalidRequest();
    expect(toRequestError(passed)).toBe(passed);
  });

  test("a failed turn carries its kind; auth failures ask for credentials", () => {
    expect(turnFailed({ kind: "rateLimit", message: "slow down" })).toMatchObject({
      code: -32603,
      data: { kind: "rateLimit", message: "slow down" },
    });
    expect(turnFailed({ kind: "auth", message: "401" }).code).toBe(-32000);
  });
});
