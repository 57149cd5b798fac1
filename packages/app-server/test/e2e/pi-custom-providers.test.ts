/**
 * A pi-style provider with its own `streamSimple` (a custom api) registered by an
 * extension in a real `knightcode app-server -e` child: its models reach `model/list`, and
 * a turn on one streams through the agent loop like any provider's (deltas, usage, the
 * thinking level as pi's `reasoning`, the API key, abort, a classified error). The
 * fixture relays to the testkit's mock model over the Chat Completions wire.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type {
  AppServerClient,
  ThreadTokenUsageUpdatedNotification,
  TurnCompletedNotification,
} from "@knightcode/app-server-protocol";
import { textReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, type E2EServer, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";

const FIXTURE = join(import.meta.dir, "fixtures", "extensions", "own-stream-provider.ts");
const stdio = TARGETS.find((t) => t.name === "stdio")!;

async function ownStreamServer(): Promise<{ server: E2EServer; threadId: string }> {
  const server = await stdio.start({
    extensions: [FIXTURE],
    envFromMock: (mock) => ({ OWN_STREAM_BASE_URL: mock.baseUrl }),
  });
  const { thread, warnings } = await server.client.request("thread/start", {
    cwd: server.agent.cwd,
    approvalMode: "fullAccess",
    model: MOCK_MODEL,
  });
  expect(warnings.filter((w) => w.source === "extension")).toEqual([]);
  return { server, threadId: thread.id };
}

function turnDone(client: AppServerClient, threadId: string): Promise<TurnCompletedNotification> {
  return nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
}

async function useModel(server: E2EServer, threadId: string, id: string, thinkingLevel?: "high") {
  await server.client.request("thread/settings/update", {
    threadId,
    model: { provider: "own-stream", id },
    ...(thinkingLevel ? { thinkingLevel } : {}),
  });
}

describe("a provider with its own streamSimple", () => {
  test(
    "its models are listed and a turn streams deltas and usage through its function",
    async () => {
      const { server, threadId } = await ownStreamServer();
      await using _ = server;
      const { models } = await server.client.request("model/list", { threadId });
      const own = models.filter((m) => m.provider === "own-stream").map((m) => m.id);
      expect(own.sort()).toEqual(["refused", "relay"]);
      await useModel(server, threadId, "relay", "high");
      server.mock.enqueue({ ...textReply("relayed by own-stream", 3), usage: { input: 11, output: 7 } });
      const deltas: string[] = [];
      server.client.onNotification("item/agentMessage/delta", (p) => {
        deltas.push((p as { delta: string }).delta);
      });
      const usage = nextNotification<ThreadTokenUsageUpdatedNotification>(
        server.client,
        "thread/tokenUsage/updated",
        (p) => p.threadId === threadId,
      );
      const done = turnDone(server.client, threadId);
      await server.client.request("turn/start", { threadId, text: "relay this" });
      expect((await done).turn.status).toBe("completed");
      expect(deltas.join("")).toBe("relayed by own-stream");
      expect(deltas.length).toBe(3);
      const reported = (await usage).usage;
      expect([reported.input, reported.output]).toEqual([11, 7]);
      // cost from the provider's own model prices: 11 * $3/M + 7 * $15/M
      expect(reported.cost).toBeCloseTo((11 * 3 + 7 * 15) / 1e6, 12);
      const request = server.mock.requests[0]!;
      expect(request.headers["x-own-stream"]).toBe("reasoning=high");
      expect(request.headers.authorization).toBe("Bearer own-stream-key");
      expect(JSON.stringify(request.body)).toContain("relay this");
    },
    E2E_TIMEOUT,
  );

  test(
    "turn/interrupt aborts a turn its function is streaming",
    async () => {
      const { server, threadId } = await ownStreamServer();
      await using _ = server;
      await useModel(server, threadId, "relay");
      server.mock.enqueue({ ...textReply("first words, then silence", 5), stallAfterEvents: 3 });
      const firstDelta = nextNotification(server.client, "item/agentMessage/delta", () => true);
      const done = turnDone(server.client, threadId);
      await server.client.request("turn/start", { threadId, text: "start talking" });
      await firstDelta;
      await server.client.request("turn/interrupt", { threadId });
      expect((await done).turn.status).toBe("interrupted");
    },
    E2E_TIMEOUT,
  );

  test(
    "a function that throws fails the turn with the error classified",
    async () => {
      const { server, threadId } = await ownStreamServer();
      await using _ = server;
      await useModel(server, threadId, "refused");
      const done = turnDone(server.client, threadId);
      await server.client.request("turn/start", { threadId, text: "hello" });
      const { turn } = await done;
      expect(turn.status).toBe("failed");
      expect(turn.error?.kind).toBe("auth");
      expect(turn.error?.message).toContain("Invalid API key for own-stream");
      expect(server.mock.requests.length).toBe(0);
    },
    E2E_TIMEOUT,
  );
});
