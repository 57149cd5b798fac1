import { describe, expect, test } from "bun:test";
import { createAskUserTool, createSubmitPlanTool } from "../../src/index.ts";
import { runTool } from "../helpers/run-tool.ts";

describe("host tools", () => {
  test("ask_user returns the host's answer and passes the options through", async () => {
    let seen: unknown;
    const tool = createAskUserTool(async (request) => {
      seen = request;
      return "blue";
    });
    const result = await runTool(tool, { question: "Colour?", options: ["red", "blue"] });
    expect(result.text).toBe("blue");
    expect(seen).toEqual({ question: "Colour?", options: ["red", "blue"] });
  });

  test("without a host, ask_user and submit_plan fail with a clear message", async () => {
    expect((await runTool(createAskUserTool(undefined), { question: "?" })).text).toContain(
      "No user is available",
    );
    expect((await runTool(createSubmitPlanTool(undefined), { plan: "p" })).isError).toBe(true);
  });

  test("submit_plan reports approval or rejection with feedback", async () => {
    const approve = createSubmitPlanTool(async () => ({ approved: true }));
    expect((await runTool(approve, { plan: "1. do it" })).text).toBe("Plan approved. Carry it out.");
    const reject = createSubmitPlanTool(async (plan) => ({
      approved: false,
      feedback: `too vague: ${plan}`,
    }));
    expect((await runTool(reject, { plan: "stuff" })).text).toBe(
      "Plan rejected.\n\nFeedback: too vague: stuff",
    );
  });

  test("the host sees the call's abort signal", async () => {
    const controller = new AbortController();
    const tool = createAskUserTool(
      (_request, signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(new Error("cancelled"))),
        ),
    );
    const pending = runTool(tool, { question: "?" }, { signal: controller.signal });
    controller.abort();
    expect((await pending).text).toBe("cancelled");
  });
});
