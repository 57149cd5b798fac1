import { afterEach, describe, expect, test } from "bun:test";
import type { PayloadRef, ThreadItem, Turn } from "@knightcode/app-server-protocol";
import { INLINE_LIMIT_BYTES, LargeValues } from "../src/large-values.ts";
import { createPayloadSpool, type PayloadSpool } from "../src/payload-spool.ts";

const spools: PayloadSpool[] = [];
afterEach(() => {
  for (const s of spools.splice(0)) s.dispose();
});

function setup() {
  const spool = createPayloadSpool();
  spools.push(spool);
  const read = (ref: PayloadRef): string => {
    const parts: Buffer[] = [];
    let offset = 0;
    for (;;) {
      const chunk = spool.read(ref.id, offset);
      parts.push(Buffer.from(chunk.data, "base64"));
      if (chunk.eof) return Buffer.concat(parts).toString("utf8");
      offset = chunk.nextOffset!;
    }
  };
  return { large: new LargeValues(spool), read, spool };
}

const big = (n: number) => "z".repeat(n);

describe("large values", () => {
  test("tool input and output over 64 KiB become inputRef/outputRef; the item stays inline", () => {
    const { large, read } = setup();
    const item: ThreadItem = {
      id: "call_1",
      type: "toolCall",
      toolName: "write",
      input: { path: "a.txt", content: big(70_000) },
      output: big(70_000),
      status: "completed",
    };
    const shaped = large.item(item);
    expect(shaped.type).toBe("toolCall");
    const call = shaped as Extract<ThreadItem, { type: "toolCall" }>;
    expect(call.input).toBeUndefined();
    expect(call.output).toBeUndefined();
    expect(JSON.parse(read(call.inputRef!))).toEqual(item.type === "toolCall" ? item.input : null);
    expect(read(call.outputRef!)).toBe(big(70_000));
  });

  test("values at the limit stay inline; one byte over becomes a reference", () => {
    const { large } = setup();
    const overhead = JSON.stringify({ id: "1", type: "agentMessage", text: "" }).length;
    const at: ThreadItem = { id: "1", type: "agentMessage", text: big(INLINE_LIMIT_BYTES - overhead) };
    expect(large.item(at)).toBe(at);
    const over: ThreadItem = { id: "1", type: "agentMessage", text: big(INLINE_LIMIT_BYTES - overhead + 1) };
    expect(large.item(over).type).toBe("payloadRef");
  });

  test("a turn of many inline items over 64 KiB becomes a reference holding the shaped items", () => {
    const { large, read } = setup();
    const items: ThreadItem[] = Array.from({ length: 5 }, (_, i) => ({
      id: String(i),
      type: "agentMessage" as const,
      text: big(20_000),
    }));
    const turn: Turn = { id: "t", status: "completed", startedAt: 1, items };
    const shaped = large.turn(turn);
    expect("type" in shaped && shaped.type).toBe("payloadRef");
    expect(JSON.parse(read(shaped as PayloadRef))).toEqual(turn);
  });

  test("turn notifications keep an inline summary even when the turn is large", () => {
    const { large } = setup();
    const turn: Turn = {
      id: "t",
      status: "failed",
      startedAt: 1,
      error: { message: big(5000), kind: "other" },
      items: Array.from({ length: 4 }, (_, i) => ({
        id: String(i),
        type: "agentMessage" as const,
        text: big(30_000),
      })),
    };
    const n = large.notification({ method: "turn/completed", params: { threadId: "x", turn } });
    const params = n.params as { turn: Turn };
    expect(params.turn.items).toBeUndefined();
    expect(params.turn.error!.message.length).toBe(2000);
  });

  test("approval input over 64 KiB travels as inputRef", () => {
    const { large, read } = setup();
    const params = large.approval({
      threadId: "t",
      turnId: "u",
      itemId: "i",
      toolName: "write",
      input: { content: big(80_000) },
      decisions: ["accept", "decline"],
    });
    expect(params.input).toBeUndefined();
    expect(JSON.parse(read(params.inputRef!))).toEqual({ content: big(80_000) });
    const small = large.approval({
      threadId: "t",
      turnId: "u",
      itemId: "i",
      toolName: "ls",
      input: {},
      decisions: ["accept"],
    });
    expect(small.input).toEqual({});
  });
});
