import { describe, expect, test } from "bun:test";
import { textReply } from "@knightcode/testkit";
import { createHarness, methods } from "./support/harness.ts";

describe("retried provider failures", () => {
  test("output streamed before a retried failure is withdrawn with item/removed and the retry streams as a fresh item", async () => {
    await using h = await createHarness({ settings: { retry: { baseDelayMs: 0 } } });
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    // The cut waits until the client was shown part of the first attempt, so the withdrawal is certain.
    const shown = h.waitFor((n) => n.method === "item/agentMessage/delta");
    h.server.enqueue(
      { steps: [{ type: "text", text: "half a reply", deltas: 3 }], cutAfterEvents: 2, cutWhen: shown },
      textReply("whole reply", 2),
    );
    await h.manager.startTurn({ threadId: thread.id, text: "hi" }, h.desktop());
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(h.server.requests.length).toBe(2);
    const seen = h.received("c1").filter((n) => n.method.startsWith("item/"));
    const agentItems = seen.filter(
      (n) =>
        (n.method === "item/started" || n.method === "item/completed") &&
        n.params.item.type === "agentMessage",
    );
    const removed = seen.findIndex((n) => n.method === "item/removed");
    expect(removed).toBeGreaterThan(0);
    const firstStart = seen.findIndex(
      (n) => n.method === "item/started" && n.params.item.type === "agentMessage",
    );
    const withdrawnId = seen[removed]?.method === "item/removed" ? seen[removed].params.itemId : "";
    expect(seen[firstStart]?.method === "item/started" && seen[firstStart].params.item.id).toBe(withdrawnId);
    // After the withdrawal: a fresh item/started (empty text), only the retry's deltas, then its completion.
    const after = seen.slice(removed + 1);
    expect(methods(after)).toEqual([
      "item/started",
      "item/agentMessage/delta",
      "item/agentMessage/delta",
      "item/completed",
    ]);
    const restarted = after[0];
    expect(restarted?.method === "item/started" && restarted.params.item).toMatchObject({
      type: "agentMessage",
      text: "",
    });
    const deltas = after.flatMap((n) => (n.method === "item/agentMessage/delta" ? [n.params.delta] : []));
    expect(deltas.join("")).toBe("whole reply");
    const completed = agentItems.at(-1);
    expect(completed?.method).toBe("item/completed");
    expect(completed?.method === "item/completed" && completed.params.item).toMatchObject({
      type: "agentMessage",
      text: "whole reply",
    });
    // History agrees with the live completion and keeps nothing of the failed attempt.
    const read = await h.manager.readThread({ threadId: thread.id }, h.desktop());
    const items = read.turns[0] && "items" in read.turns[0] ? (read.turns[0].items ?? []) : [];
    expect(items.map((i) => ("type" in i ? i.type : ""))).toEqual(["userMessage", "agentMessage"]);
    if (completed?.method !== "item/completed") throw new Error("no completed agent message");
    expect(items[1]).toEqual(completed.params.item);
  });
});
