import { afterEach, describe, expect, test } from "bun:test";
import type { PayloadRef, ThreadItem, Turn } from "@knightcode/app-server-protocol";
import {
  envelopeBytes,
  INLINE_LIMIT_BYTES,
  jsonStringPrefix,
  LargeValues,
  responseLineBytes,
} from "../src/large-values.ts";
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

  test("a multi-MiB agent message is spooled as exactly its JSON, with its exact byte length", () => {
    const { large, read } = setup();
    // slices of a long string are spooled without a copy; escapes and non-ASCII still come out exact
    const text = `${big(3_000_000)}"\\\n é 😀 ${big(500_000)}`;
    const item: ThreadItem = {
      id: "t:0",
      type: "agentMessage",
      text,
      startedAt: 1,
      completedAt: 2,
      index: 0,
    };
    const ref = large.item(item) as PayloadRef;
    expect(ref.type).toBe("payloadRef");
    const stored = read(ref);
    expect(stored).toBe(JSON.stringify(item));
    expect(ref.byteLength).toBe(Buffer.byteLength(stored));
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

  test("an approval preview's diff over 64 KiB travels as diffRef; a small one stays inline", () => {
    const { large, read } = setup();
    const request = (diff: string) =>
      large.approval({
        threadId: "t",
        turnId: "u",
        itemId: "i",
        toolName: "write",
        input: { path: "a", content: "x" },
        decisions: ["accept", "decline"],
        preview: { type: "fileChange", path: "/w/a", kind: "modify", diff },
      });
    const shaped = request(big(80_000));
    expect(shaped.preview).toMatchObject({ type: "fileChange", path: "/w/a", kind: "modify" });
    const preview = shaped.preview as { diff?: string; diffRef?: PayloadRef };
    expect(preview.diff).toBeUndefined();
    expect(read(preview.diffRef!)).toBe(big(80_000));
    expect(shaped.input).toEqual({ path: "a", content: "x" });
    expect(request("@@ -1 +1 @@\n-a\n+b\n").preview).toEqual({
      type: "fileChange",
      path: "/w/a",
      kind: "modify",
      diff: "@@ -1 +1 @@\n-a\n+b\n",
    });
  });
});

describe("exact response budget", () => {
  const LIMIT = 1024 * 1024;
  const thread = { id: "t", cwd: "/tmp", createdAt: "x", updatedAt: "x", archived: false } as never;
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextWindow: 0 };
  const turnOf = (id: string, textBytes: number): Turn => ({
    id,
    status: "completed",
    startedAt: 1,
    items: [{ id: `${id}-1`, type: "agentMessage", text: "y".repeat(textBytes) }],
  });

  test("envelopeBytes is the line's bytes outside the result, for any id", () => {
    for (const id of [
      1,
      0,
      -5,
      2 ** 53 + 2,
      0.5,
      Number.MAX_VALUE,
      "",
      "abc",
      'q"\\\n\u0001\u2028é😀',
      "\ud800x",
    ]) {
      const result = { turns: [1, "two"] };
      expect(responseLineBytes(id, result)).toBe(Buffer.byteLength(`${JSON.stringify({ id, result })}\n`));
      expect(envelopeBytes(id) + Buffer.byteLength(JSON.stringify(result))).toBe(
        responseLineBytes(id, result),
      );
    }
  });

  test("jsonStringPrefix never splits a pair and never exceeds the byte budget", () => {
    const text = 'ab"\\\n\u0001é€😀\ud800\udc00\udfffz\u2028';
    const full = Buffer.byteLength(JSON.stringify(text)) - 2;
    for (let max = 0; max <= full + 2; max++) {
      const prefix = jsonStringPrefix(text, max);
      const bytes = Buffer.byteLength(JSON.stringify(prefix)) - 2;
      expect(bytes).toBeLessThanOrEqual(max);
      expect(text.startsWith(prefix)).toBe(true);
      // one more unit (or pair) would not fit
      if (prefix.length < text.length) {
        const next = text.slice(
          0,
          prefix.length +
            (/[\ud800-\udbff][\udc00-\udfff]/.test(text.slice(prefix.length, prefix.length + 2)) ? 2 : 1),
        );
        expect(Buffer.byteLength(JSON.stringify(next)) - 2).toBeGreaterThan(max);
      }
    }
    expect(jsonStringPrefix(text, full)).toBe(text);
  });

  test("history: a request id near 1 MiB turns inline turns into references until the line fits", () => {
    const { large, read } = setup();
    const turns: (Turn | PayloadRef)[] = [turnOf("a", 30_000), turnOf("b", 20_000)];
    const id = "i".repeat(LIMIT - 40_000);
    const fit = large.history({ thread, turns }, envelopeBytes(id));
    expect(fit.fits).toBe(true);
    expect(responseLineBytes(id, fit.result)).toBe(fit.bytes);
    expect(fit.bytes).toBeLessThanOrEqual(LIMIT);
    const [a, b] = fit.result.turns;
    // the largest went first; the smaller one still fits inline
    expect((a as PayloadRef).type).toBe("payloadRef");
    expect(JSON.parse(read(a as PayloadRef))).toEqual(turns[0]);
    expect((b as Turn).id).toBe("b");
  });

  test("history: an id leaving no room for even the references does not fit", () => {
    const { large } = setup();
    const id = "i".repeat(LIMIT - 100);
    const fit = large.history({ thread, turns: [turnOf("a", 10)] }, envelopeBytes(id));
    expect(fit.fits).toBe(false);
    expect(fit.bytes).toBeGreaterThan(LIMIT);
  });

  test("history: huge queue texts are shortened, largest first, after the turns became references", () => {
    const { large } = setup();
    const queue = {
      steering: ["s".repeat(300_000)],
      followUp: [
        { id: "q1", text: "é".repeat(400_000) },
        { id: "q2", text: "small" },
      ],
    };
    const turns: (Turn | PayloadRef)[] = [turnOf("a", 50_000)];
    const result = { thread, turns, queue, usage, warnings: [] };
    const id = 7;
    const fit = large.history(result, envelopeBytes(id));
    expect(fit.fits).toBe(true);
    expect(responseLineBytes(id, fit.result)).toBeLessThanOrEqual(LIMIT);
    expect((fit.result.turns[0] as PayloadRef).type).toBe("payloadRef");
    expect(fit.shortenedQueue).toBe(queue);
    const sent = fit.result.queue;
    expect(sent.followUp.map((f) => f.id)).toEqual(["q1", "q2"]);
    expect(sent.followUp[1]!.text).toBe("small");
    expect(queue.followUp[0]!.text.startsWith(sent.followUp[0]!.text)).toBe(true);
    expect(sent.followUp[0]!.text.length).toBeLessThan(400_000);
    // the original queue is untouched
    expect(queue.followUp[0]!.text.length).toBe(400_000);
    // what fits is used: the line is close to the limit, not emptied
    expect(fit.bytes).toBeGreaterThan(LIMIT - 1024);
  });

  test("list: fewer rows are fetched until the exact line fits, with the manager's cursor", async () => {
    const { large } = setup();
    const rows = Array.from({ length: 400 }, (_, i) => ({ id: `r${i}`, title: "t".repeat(4000) }));
    const page = (limit: number) => ({
      threads: rows.slice(0, limit),
      ...(limit < rows.length ? { nextCursor: `after:${limit}:${"c".repeat(3000)}` } : {}),
    });
    const id = "i".repeat(200_000);
    const limits: number[] = [];
    const result = await large.list(page(400), envelopeBytes(id), async (limit) => {
      limits.push(limit);
      return page(limit);
    });
    expect(result).toBeDefined();
    expect(responseLineBytes(id, result)).toBeLessThanOrEqual(LIMIT);
    // one more row would not have fit
    expect(responseLineBytes(id, page(result!.threads.length + 1))).toBeGreaterThan(LIMIT);
    expect(result!.nextCursor).toStartWith(`after:${result!.threads.length}:`);
    expect(limits.length).toBeGreaterThanOrEqual(1);
  });

  test("list: no row fits next to an id near 1 MiB", async () => {
    const { large } = setup();
    const rows = [{ id: "r0", title: "t".repeat(4000) }];
    const id = "i".repeat(LIMIT - 1000);
    const result = await large.list({ threads: rows }, envelopeBytes(id), async (limit) => ({
      threads: rows.slice(0, limit),
    }));
    expect(result).toBeUndefined();
    const empty = await large.list({ threads: [] }, envelopeBytes(id), async () => ({ threads: [] }));
    expect(responseLineBytes(id, empty)).toBeLessThanOrEqual(LIMIT);
  });
});
