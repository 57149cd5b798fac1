import { expect, test } from "bun:test";
import {
  AssistantMessageBuilder,
  createAssistantMessageStream,
  DEMO_MODEL,
  STREAM_HIGH_WATER_EVENTS,
} from "../src/index.ts";

test("events buffer until read, result settles on done, later pushes are ignored", async () => {
  const { stream, push } = createAssistantMessageStream();
  const builder = new AssistantMessageBuilder(DEMO_MODEL, push);
  builder.start();
  const i = builder.textStart();
  builder.textDelta(i, "a");
  builder.textDelta(i, "b");
  builder.finish("stop");
  builder.fail(new Error("late"));
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  expect(types).toEqual(["start", "text_start", "text_delta", "text_delta", "text_end", "done"]);
  const message = await stream.result();
  expect(message.content).toEqual([{ type: "text", text: "ab" }]);
  expect(message.stopReason).toBe("stop");
});

test("a consumer waiting on an empty stream wakes on the next push", async () => {
  const { stream, push } = createAssistantMessageStream();
  const builder = new AssistantMessageBuilder(DEMO_MODEL, push);
  const iterator = stream[Symbol.asyncIterator]();
  const first = iterator.next();
  builder.start();
  expect((await first).value?.type).toBe("start");
  builder.fail(new Error("ECONNRESET"));
  expect((await iterator.next()).value).toMatchObject({ type: "error", reason: "error" });
  expect((await iterator.next()).done).toBe(true);
  expect((await stream.result()).errorKind).toBe("network");
});

test("broken tool-call JSON becomes empty arguments, not a throw", async () => {
  const { stream, push } = createAssistantMessageStream();
  const builder = new AssistantMessageBuilder(DEMO_MODEL, push);
  builder.start();
  const i = builder.toolCallStart("c1", "ls");
  builder.toolCallDelta(i, '{"path": "sr');
  builder.finish("toolUse");
  expect((await stream.result()).content).toEqual([
    { type: "toolCall", id: "c1", name: "ls", arguments: {} },
  ]);
});

test("ready() asks the producer to wait once a reading consumer falls behind, and frees it as it catches up", async () => {
  const { stream, push, ready } = createAssistantMessageStream();
  const builder = new AssistantMessageBuilder(DEMO_MODEL, push);
  builder.start();
  const i = builder.textStart();
  // nobody iterates yet: a consumer that only awaits result() never holds the producer
  for (let n = 0; n < STREAM_HIGH_WATER_EVENTS * 2; n++) builder.textDelta(i, "x");
  expect(ready()).toBeUndefined();
  const iterator = stream[Symbol.asyncIterator]();
  await iterator.next();
  const wait = ready();
  expect(wait).toBeInstanceOf(Promise);
  let freed = false;
  void wait!.then(() => {
    freed = true;
  });
  for (let n = 0; n < STREAM_HIGH_WATER_EVENTS * 2 && !freed; n++) await iterator.next();
  await wait;
  expect(freed).toBe(true);
  expect(ready()).toBeUndefined();
  // a consumer that stops iterating lets the producer go
  for (let n = 0; n < STREAM_HIGH_WATER_EVENTS * 2; n++) builder.textDelta(i, "y");
  const held = ready();
  expect(held).toBeInstanceOf(Promise);
  await iterator.return?.();
  await held;
  expect(ready()).toBeUndefined();
});
