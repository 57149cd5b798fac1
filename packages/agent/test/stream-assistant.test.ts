import { describe, expect, test } from "bun:test";
import { type MockScript, textReply } from "@knightcode/testkit";
import type { AgentEvent, RetryOptions } from "../src/index.ts";
import { textOf, user } from "./helpers/messages.ts";
import { mockAgent, useMockServer, WIRE_APIS } from "./helpers/mock-model.ts";

const mock = useMockServer();

function setup(
  scripts: MockScript[],
  retry: Partial<RetryOptions> = { baseDelayMs: 1000, maxRetryDelayMs: 5000 },
) {
  mock().enqueue(...scripts);
  const slept: number[] = [];
  const agent = mockAgent(mock(), { retry, sleep: async (ms) => void slept.push(ms) });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  return { agent, slept, events };
}

describe("streamAssistant retries", () => {
  test("a 429 with retry-after waits exactly that long, then succeeds", async () => {
    const { agent, slept, events } = setup([
      { error: { kind: "rateLimit", retryAfterSeconds: 3 } },
      textReply("fine now"),
    ]);
    await agent.prompt(user("hi"));
    expect(slept).toEqual([3000]);
    expect(mock().requests.length).toBe(2);
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(agent.messages[1] as never)).toBe("fine now");
    expect(events.find((e) => e.type === "retry_scheduled")).toMatchObject({
      attempt: 1,
      maxRetries: 3,
      delayMs: 3000,
    });
  });

  for (const api of WIRE_APIS) {
    test(`${api}: a 429's retry-after is honoured, and one over the cap fails without waiting`, async () => {
      mock().enqueue({ error: { kind: "rateLimit", retryAfterSeconds: 2 } }, textReply("fine now"), {
        error: { kind: "rateLimit", retryAfterSeconds: 30 },
      });
      const slept: number[] = [];
      const agent = mockAgent(mock(), {
        api,
        retry: { baseDelayMs: 100, maxRetryDelayMs: 5000 },
        sleep: async (ms) => void slept.push(ms),
      });
      await agent.prompt(user("hi"));
      expect(slept).toEqual([2000]);
      expect(textOf(agent.messages.at(-1) as never)).toBe("fine now");
      await agent.prompt(user("again"));
      expect(slept).toEqual([2000]);
      expect(mock().requests).toHaveLength(3);
      expect(agent.messages.at(-1)).toMatchObject({ stopReason: "error", errorKind: "rateLimit" });
    });
  }

  test("5xx failures back off exponentially, capped by maxRetryDelayMs", async () => {
    const fail: MockScript = { error: { kind: "server" } };
    const { agent, slept } = setup([fail, fail, fail, textReply("ok")], {
      baseDelayMs: 2000,
      maxRetryDelayMs: 5000,
      maxRetries: 3,
    });
    await agent.prompt(user("hi"));
    expect(slept).toEqual([2000, 4000, 5000]);
    expect(agent.messages.at(-1)).toMatchObject({ stopReason: "stop" });
  });

  test("after maxRetries the error is final and stays in the context", async () => {
    const fail: MockScript = { error: { kind: "overloaded" } };
    const { agent, slept } = setup([fail, fail, fail], {
      baseDelayMs: 10,
      maxRetryDelayMs: 100,
      maxRetries: 2,
    });
    await agent.prompt(user("hi"));
    expect(slept).toEqual([10, 20]);
    expect(mock().requests.length).toBe(3);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
  });

  test("a retry-after above maxRetryDelayMs fails at once instead of waiting", async () => {
    const { agent, slept } = setup([{ error: { kind: "rateLimit", retryAfterSeconds: 60 } }]);
    await agent.prompt(user("hi"));
    expect(slept).toEqual([]);
    expect(mock().requests.length).toBe(1);
    expect(agent.messages.at(-1)).toMatchObject({ stopReason: "error", errorKind: "rateLimit" });
  });

  test("auth, context-overflow and bad-request failures are not retried", async () => {
    for (const kind of ["auth", "contextOverflow", "badRequest"] as const) {
      mock().reset();
      const { agent, slept } = setup([{ error: { kind } }]);
      await agent.prompt(user("hi"));
      expect(slept).toEqual([]);
      expect(mock().requests.length).toBe(1);
      expect(agent.messages.at(-1)).toMatchObject({ stopReason: "error" });
    }
  });

  test("retry disabled means the first failure is final", async () => {
    const { agent } = setup([{ error: { kind: "server" } }, textReply("unused")], { enabled: false });
    await agent.prompt(user("hi"));
    expect(mock().requests.length).toBe(1);
  });

  test("output shown before a stream cut is withdrawn with a dropped message_end, then retried", async () => {
    // Cut only once the partial text has reached the agent, so the withdrawal is certain.
    const { promise: textShown, resolve: showText } = Promise.withResolvers<void>();
    const { agent, events, slept } = setup([
      { steps: [{ type: "text", text: "half a reply", deltas: 3 }], cutAfterEvents: 2, cutWhen: textShown },
      textReply("whole reply"),
    ]);
    agent.subscribe((e) => {
      if (
        e.type === "message_update" &&
        e.message.role === "assistant" &&
        textOf(e.message as never) !== ""
      ) {
        showText();
      }
    });
    await agent.prompt(user("hi"));
    expect(slept).toEqual([1000]);
    const assistantEnds = events.filter((e) => e.type === "message_end" && e.message.role === "assistant");
    expect(assistantEnds.map((e) => e.type === "message_end" && e.dropped)).toEqual([true, false]);
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(agent.messages[1] as never)).toBe("whole reply");
  });

  test("abort during the backoff wait ends the run as aborted", async () => {
    mock().enqueue({ error: { kind: "server" } });
    const agent = mockAgent(mock(), {
      sleep: (_ms, signal) => {
        agent.abort();
        return Promise.reject(signal.reason);
      },
    });
    await agent.prompt(user("hi"));
    expect(mock().requests.length).toBe(1);
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });
});
