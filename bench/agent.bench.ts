/**
 * 10,000 text deltas streamed from the testkit mock through a real provider (real HTTP, SDK
 * parsing) and the agent loop, counted as `message_update` events by a subscriber, once per
 * wire format. A provider-only row shows what the loop adds. Prints deltas per second.
 */

import { Bench } from "tinybench";
import { Agent } from "../packages/agent/src/index.ts";
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  emptyUsage,
  type Model,
  type StreamFunction,
  streamModel,
} from "../packages/ai/src/index.ts";
import { startMockModelServer } from "../packages/testkit/src/index.ts";

const DELTAS = 10_000;
const mock = await startMockModelServer();
mock.setDefault({ steps: [{ type: "text", text: "x".repeat(DELTAS * 4), deltas: DELTAS }] });

const apis = ["openai-completions", "openai-responses", "anthropic-messages"] as const;
const modelFor = (api: (typeof apis)[number]): Model => ({
  id: "bench-model",
  name: "Bench",
  api,
  provider: "bench",
  baseUrl: mock.baseUrl,
  reasoning: false,
  input: ["text"],
  cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 1_000,
  thinkingLevels: ["off"],
});
const prompt = { role: "user" as const, content: "go", timestamp: 0 };

const bench = new Bench({ iterations: 10, warmupIterations: 2, time: 0 });

bench.add(`provider only (openai-completions): ${DELTAS} deltas`, async () => {
  let count = 0;
  const stream = streamModel(modelFor("openai-completions"), { messages: [prompt] }, { apiKey: "k" });
  for await (const event of stream) if (event.type === "text_delta") count++;
  if (count !== DELTAS) throw new Error(`expected ${DELTAS} deltas, got ${count}`);
});

// The loop's own cost: the same 10,000 deltas from memory, no HTTP and no SDK parsing.
const inMemory: StreamFunction = (model) => {
  const partial: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text: "" }],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: 0,
  };
  const events = (async function* (): AsyncGenerator<AssistantMessageEvent> {
    yield { type: "start", partial };
    for (let i = 0; i < DELTAS; i++) yield { type: "text_delta", contentIndex: 0, delta: "xxxx", partial };
    yield { type: "done", reason: "stop", message: partial };
  })();
  return { [Symbol.asyncIterator]: () => events, result: async () => partial };
};
bench.add(`agent loop (in-memory stream): ${DELTAS} deltas`, async () => {
  const agent = new Agent({ model: modelFor("openai-completions"), streamFn: inMemory });
  let count = 0;
  agent.subscribe((event) => {
    if (event.type === "message_update" && event.event.type === "text_delta") count++;
  });
  await agent.prompt(prompt);
  if (count !== DELTAS) throw new Error(`expected ${DELTAS} deltas, got ${count}`);
});

for (const api of apis) {
  const model = modelFor(api);
  bench.add(`agent loop (${api}): ${DELTAS} deltas`, async () => {
    // A fresh agent per run so the context does not grow across iterations.
    const agent = new Agent({ model, streamFn: streamModel, getApiKey: () => "k" });
    let count = 0;
    agent.subscribe((event) => {
      if (event.type === "message_update" && event.event.type === "text_delta") count++;
    });
    await agent.prompt(prompt);
    if (count !== DELTAS) throw new Error(`expected ${DELTAS} deltas, got ${count}`);
  });
}

await bench.run();
console.table(bench.table());
for (const task of bench.tasks) {
  const meanMs = task.result && "latency" in task.result ? task.result.latency.mean : Number.NaN;
  console.log(`${task.name}: ${Math.round((DELTAS / meanMs) * 1000).toLocaleString("en-US")} deltas/s`);
}
await mock.close();
