/**
 * MCP costs: time from a thread asking for a stdio server (server-everything, a real
 * npm package run by Bun) to its first tool listing, and the per-call cost of an MCP
 * `echo` round trip next to a built-in `read` of a small file.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bench } from "tinybench";
import { createLocalOperations, createReadTool } from "../packages/agent/src/index.ts";
import { McpHub, ThreadMcpServers } from "../packages/mcp/src/index.ts";
import { everythingServer } from "../packages/testkit/src/index.ts";

const dir = mkdtempSync(join(tmpdir(), "mcp-bench-"));
writeFileSync(join(dir, "small.txt"), "hello\n");
const quiet = () => {};
const ctx = { toolCallId: "bench", signal: new AbortController().signal, onUpdate: quiet };

const bench = new Bench({ iterations: 5, warmupIterations: 1, time: 0 });
bench.add("stdio server start to first tool listing (server-everything)", async () => {
  const hub = new McpHub({ log: quiet });
  const thread = new ThreadMcpServers({ hub, cwd: dir, warn: quiet, log: quiet });
  await thread.start([{ name: "everything", origin: "global", config: everythingServer() }]);
  const tools = await thread.tools();
  if (tools.length === 0) throw new Error("no tools listed");
  await hub.closeAll();
});
await bench.run();
console.table(bench.table());

const hub = new McpHub({ log: quiet });
const thread = new ThreadMcpServers({ hub, cwd: dir, warn: quiet, log: quiet });
await thread.start([{ name: "everything", origin: "global", config: everythingServer() }]);
const echo = (await thread.tools()).find((t) => t.name === "mcp__everything__echo")!;
const read = createReadTool({ cwd: dir, ops: createLocalOperations() });

const calls = new Bench({ time: 1000 });
calls
  .add("MCP echo call (stdio round trip, result mapping)", async () => {
    await echo.execute({ message: "hi" }, ctx);
  })
  .add("built-in read of a 6-byte file", async () => {
    await read.execute({ path: "small.txt" }, ctx);
  });
await calls.run();
console.table(calls.table());
await hub.closeAll();
rmSync(dir, { recursive: true, force: true });
