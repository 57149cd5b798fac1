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
});
