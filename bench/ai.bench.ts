/**
 * 10,000 and 20,000 text deltas streamed from the testkit mock through each provider (real
 * HTTP, the SDK sending the request, our SSE reader, normalized events consumed). Prints
 * tinybench's table, deltas per second (wall clock, and per CPU second of this process, which
 * also runs the mock; the CPU figure moves less when the shared machine is busy), and per
 * format how the 20,000-delta rate compares with the 10,000-delta one: a ratio well below 1
 * would mean per-delta cost grows with the reply (quadratic behaviour). Then 50-delta turns,
 * as milliseconds per turn (per-request overhead).
 */

import { Bench } from "tinybench";
import { type Model, streamModel } from "../packages/ai/src/index.ts";
import { startMockModelServer } from "../packages/testkit/src/index.ts";

const SIZES = [10_000, 20_000] as const;
const mock = await startMockModelServer();
// The model ID carries the reply size, so one mock serves every row.
mock.setDefault((request) => {
  const id = (request.body as { model?: string } | undefined)?.model ?? "";
  const deltas = Number(/^bench-(\d+)$/.exec(id)?.[1] ?? SIZES[0]);
  return { steps: [{ type: "text", text: "x".repeat(deltas * 4), deltas }] };
});

const apis = ["openai-completions", "openai-responses", "anthropic-messages"] as const;
const modelFor = (api: (typeof apis)[number], deltas: number): Model => ({
  id: `bench-${deltas}`,
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
const rows: { deltas: number; name: string }[] = [];
const cpu = new Map<string, { micros: number; runs: number }>();
for (const api of apis) {
  for (const deltas of SIZES) {
    const model = modelFor(api, deltas);
    const name = `${api}: ${deltas} deltas`;
    rows.push({ deltas, name });
    const spent = { micros: 0, runs: 0 };
    cpu.set(name, spent);
    bench.add(name, async () => {
      const before = process.cpuUsage();
      let count = 0;
      const stream = streamModel(
        model,
        { messages: [{ role: "user", content: "go", timestamp: 0 }] },
        { apiKey: "k" },
      );
      for await (const event of stream) if (event.type === "text_delta") count++;
      if (count !== deltas) throw new Error(`expected ${deltas} deltas, got ${count}`);
      const used = process.cpuUsage(before);
      spent.micros += used.user + used.system;
      spent.runs++;
    });
  }
}
await bench.run();
console.table(bench.table());
const rate = new Map<string, { wall: number; cpu: number }>();
for (const { name, deltas } of rows) {
  const task = bench.tasks.find((t) => t.name === name);
  const meanMs = task?.result && "latency" in task.result ? task.result.latency.mean : Number.NaN;
  const spent = cpu.get(name);
  const perCpuSecond = spent ? (deltas * spent.runs * 1e6) / spent.micros : Number.NaN;
  rate.set(name, { wall: (deltas / meanMs) * 1000, cpu: perCpuSecond });
  const format = (n: number) => Math.round(n).toLocaleString("en-US");
  console.log(
    `${name}: ${format((deltas / meanMs) * 1000)} deltas/s (${format(perCpuSecond)} per CPU second)`,
  );
}
for (const api of apis) {
  const [small, large] = SIZES.map((deltas) => rate.get(`${api}: ${deltas} deltas`));
  const ratio = (key: "wall" | "cpu") => ((large?.[key] ?? 0) / (small?.[key] ?? 1)).toFixed(2);
  console.log(
    `${api}: ${SIZES[1]}/${SIZES[0]} deltas/s ratio ${ratio("wall")} (per CPU second ${ratio("cpu")})`,
  );
}

// Short turns: what a request costs besides its deltas (building the request, the SDK client,
// the HTTP round trip). Before clients were cached, every request built a new SDK client.
const SHORT = 50;
const short = new Bench({ iterations: 200, warmupIterations: 20, time: 0 });
for (const api of apis) {
  const model = modelFor(api, SHORT);
  short.add(`${api}: ${SHORT} deltas`, async () => {
    let count = 0;
    const stream = streamModel(
      model,
      { messages: [{ role: "user", content: "go", timestamp: 0 }] },
      { apiKey: "k" },
    );
    for await (const event of stream) if (event.type === "text_delta") count++;
    if (count !== SHORT) throw new Error(`expected ${SHORT} deltas, got ${count}`);
  });
}
await short.run();
for (const task of short.tasks) {
  const result = task.result && "latency" in task.result ? task.result.latency : undefined;
  console.log(`${task.name}: ${result?.mean.toFixed(2)} ms per turn (p99 ${result?.p99?.toFixed(2)} ms)`);
}
await mock.close();
