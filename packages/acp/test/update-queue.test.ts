import { describe, expect, test } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { UpdateQueue } from "../src/update-queue.ts";

const chunk = (text: string): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text },
});

describe("update queue", () => {
  test("updates behind async work wait for it; flush resolves after the last send", async () => {
    const sent: string[] = [];
    const queue = new UpdateQueue(
      async (u) => {
        sent.push(
          u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : "?",
        );
      },
      () => {},
    );
    queue.push(chunk("1"));
    const gate = Promise.withResolvers<void>();
    queue.push(async () => {
      await gate.promise;
      return chunk("2");
    });
    queue.push(chunk("3"));
    expect(sent).toEqual(["1"]);
    gate.resolve();
    await queue.flush();
    expect(sent).toEqual(["1", "2", "3"]);
  });

  test("a failing send or work item is reported and does not stop later updates", async () => {
    const errors: unknown[] = [];
    const sent: string[] = [];
    const queue = new UpdateQueue(
      async (u) => {
        if (u.sessionUpdate !== "agent_message_chunk") throw new Error("refused");
        sent.push("chunk");
      },
      (e) => errors.push(e),
    );
    queue.push(async () => {
      throw new Error("work failed");
    });
    queue.push({ sessionUpdate: "current_mode_update", currentModeId: "ask" });
    queue.push(chunk("x"));
    await queue.flush();
    expect(errors.length).toBe(2);
    expect(sent).toEqual(["chunk"]);
  });

  test("text deltas: the first of a burst goes at once, the rest of the burst is joined, other updates keep their place", async () => {
    const sent: string[] = [];
    const queue = new UpdateQueue(
      async (u) => {
        sent.push(
          u.sessionUpdate === "agent_message_chunk" || u.sessionUpdate === "agent_thought_chunk"
            ? `${u.sessionUpdate}:${u.content.type === "text" ? u.content.text : ""}`
            : u.sessionUpdate,
        );
      },
      () => {},
    );
    queue.pushText("agent_message_chunk", "a");
    expect(sent).toEqual(["agent_message_chunk:a"]);
    queue.pushText("agent_message_chunk", "b");
    queue.pushText("agent_message_chunk", "c");
    queue.pushText("agent_thought_chunk", "t");
    queue.push({ sessionUpdate: "current_mode_update", currentModeId: "ask" });
    queue.pushText("agent_message_chunk", "d");
    expect(sent).toEqual([
      "agent_message_chunk:a",
      "agent_message_chunk:bc",
      "agent_thought_chunk:t",
      "current_mode_update",
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.at(-1)).toBe("agent_message_chunk:d");
    // a new burst starts at once again
    queue.pushText("agent_message_chunk", "e");
    expect(sent.at(-1)).toBe("agent_message_chunk:e");
    queue.pushText("agent_message_chunk", "f");
    await queue.flush();
    expect(sent.at(-1)).toBe("agent_message_chunk:f");
  });
});
