/**
 * Child process of `stdio-output.bench.ts`: a `StdioServerTransport` on the real stdout
 * sends streaming-turn notifications (1 KiB deltas, 50 per event-loop turn, as one read
 * of a model's response yields, each a microtask after the last as the agent loop's
 * async iteration delivers them) and reports on stderr how long they took to drain.
 * argv: <transport module path> <total MiB>.
 */
import type * as Transport from "../../packages/app-server/src/stdio-transport.ts";

const [modulePath, mib] = process.argv.slice(2);
const { StdioServerTransport } = (await import(modulePath!)) as typeof Transport;
const transport = new StdioServerTransport({
  input: (async function* () {})(),
  output: process.stdout as never,
});
const delta = "x".repeat(1024);
const total = Number(mib) * 1024 * 1024;
const started = performance.now();
let sent = 0;
let bytes = 0;
while (bytes < total) {
  for (let i = 0; i < 50; i++, sent++) {
    const params = {
      threadId: "0195a000-0000-7000-8000-000000000001",
      turnId: "0195a0ff",
      itemId: `0195a0ff:${sent % 3}`,
      delta,
    };
    void transport.send({ method: "item/agentMessage/delta", params } as never);
    bytes += delta.length + 140;
    await null;
  }
  await new Promise((resolve) => setImmediate(resolve));
}
await transport.drained();
process.stderr.write(`${JSON.stringify({ seconds: (performance.now() - started) / 1000 })}\n`);
