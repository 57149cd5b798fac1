/**
 * 10,000 text deltas streamed from the testkit mock through each provider (real HTTP, real
 * SDK parsing, normalized events consumed). Prints tinybench's table and deltas per second.
 */

import { Bench } from "tinybench";
import { type Model, streamModel } from "../packages/ai/src/index.ts";
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

const bench = new Bench({ iterations: 10, warmupIterations: 2, time: 0 });
for (const api of apis) {
  const model = modelFor(api);
  bench.add(`${api}: ${DELTAS} deltas`, async () => {
    let count = 0;
    const stream = streamModel(
      model,
      { messages: [{ role: "user", content: "go", timestamp: 0 }] },
      { apiKey: "k" },
    );
    for await (const event of stream) if (event.type === "text_delta") count++;
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
