/**
 * `knightcode app-server` as users run it: a child process over pipes, the testkit mock
 * as the model. Measures spawn to `initialize` result, `thread/start`, turns of 50, 500
 * and 20,000 deltas (`turn/start` to `turn/completed`, warm process), the server's RSS
 * after those turns, and RSS with 100 loaded idle threads. Prints a table and a summary.
 *
 * RSS is read twice: at once, and after the server has been quiet for a few seconds
 * (its idle collection runs one second after the last turn). `--smol` runs the server
 * child under `bun --smol` for comparison.
 */
import { join } from "node:path";
import { Bench } from "tinybench";
import { AppServerClient, StreamTransport } from "../packages/app-server-protocol/src/index.ts";
import {
  MOCK_MODEL_ID,
  MOCK_PROVIDERS,
  mockModelsJson,
  startMockModelServer,
  tempAgentDir,
} from "../packages/testkit/src/index.ts";

const MAIN = join(import.meta.dir, "..", "apps", "cli", "src", "main.ts");
const MODEL = { provider: MOCK_PROVIDERS.completions, id: MOCK_MODEL_ID };
const BUN_FLAGS = process.argv.includes("--smol") ? ["--smol"] : [];
/** Long enough for the idle collection (1 s after the last turn) and the allocator's scavenger. */
const SETTLE_MS = 3_000;
const mock = await startMockModelServer();
const agent = await tempAgentDir({ models: mockModelsJson(mock) });
const agentWritten = performance.now();

interface Server {
  client: AppServerClient;
  child: Bun.Subprocess<"pipe", "pipe", "inherit">;
}

async function spawnServer(): Promise<Server> {
  const child = Bun.spawn([process.execPath, ...BUN_FLAGS, MAIN, "app-server"], {
    cwd: agent.cwd,
    env: { ...process.env, ...agent.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const client = new AppServerClient(new StreamTransport({ readable: child.stdout, writable: child.stdin }));
  await client.connect();
  await client.initialize({ clientInfo: { name: "bench" } });
  return { client, child };
}

async function stop(server: Server): Promise<void> {
  server.child.stdin.end();
  await server.child.exited;
}

/** One turn of `deltas` text deltas; resolves at `turn/completed`. */
async function turn(server: Server, threadId: string, deltas: number): Promise<void> {
  mock.enqueue({ steps: [{ type: "text", text: "w ".repeat(deltas), deltas }] });
  const done = new Promise<void>((resolve) => {
    const off = server.client.onNotification("turn/completed", (p) => {
      if (p.threadId !== threadId) return;
      off();
      resolve();
    });
  });
  await server.client.request("turn/start", { threadId, text: "go" });
  await done;
}

/**
 * `--thread-start [n]`: only `thread/start`, n times (200 by default) after the warm-up
 * starts, in one server child; prints the median, p10 and p90 (ms). Steadier than the
 * 30 iterations of the full run, for before/after comparisons of that path. Add
 * `--no-model` to start threads without a model (the server picks the default one).
 */
const threadStartOnly = process.argv.indexOf("--thread-start");
if (threadStartOnly !== -1) {
  const n = Number(process.argv[threadStartOnly + 1] ?? "") || 200;
  const params: { cwd: string; model?: typeof MODEL } = process.argv.includes("--no-model")
    ? { cwd: agent.cwd }
    : { cwd: agent.cwd, model: MODEL };
  const server = await spawnServer();
  // warm-up: 20 starts, and on until models.json is over a second old (the host re-reads a
  // file changed within the last second, as a user's just-edited file would be)
  for (let i = 0; i < 20 || performance.now() - agentWritten < 1_500; i++)
    await server.client.request("thread/start", params);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await server.client.request("thread/start", params);
    times.push(performance.now() - started);
  }
  await stop(server);
  times.sort((a, b) => a - b);
  const at = (q: number) => (times[Math.min(n - 1, Math.floor(q * n))] ?? Number.NaN).toFixed(2);
  const what = params.model === undefined ? " (no model)" : "";
  console.log(`thread/start${what} ×${n}: median ${at(0.5)} ms, p10 ${at(0.1)} ms, p90 ${at(0.9)} ms`);
  await mock.close();
  await agent.remove();
  process.exit(0);
}

// few iterations each: every one spawns a process or streams thousands of lines
const spawnBench = new Bench({ name: "spawn", time: 0, iterations: 8, warmupIterations: 1 });
let spawned: Server | undefined;
spawnBench.add(
  "spawn → initialize result",
  async () => {
    spawned = await spawnServer();
  },
  {
    // shutting the server down is not part of the start-up time
    afterEach: async () => {
      if (spawned !== undefined) await stop(spawned);
      spawned = undefined;
    },
  },
);
await spawnBench.run();

const warm = await spawnServer();
const { thread } = await warm.client.request("thread/start", { cwd: agent.cwd, model: MODEL });
for (let i = 0; i < 3; i++) await turn(warm, thread.id, 50);
const warmBench = new Bench({ name: "warm", time: 0, iterations: 30, warmupIterations: 3 });
warmBench.add("thread/start", async () => {
  await warm.client.request("thread/start", { cwd: agent.cwd, model: MODEL });
});
warmBench.add("turn of 50 deltas", async () => turn(warm, thread.id, 50));
warmBench.add("turn of 500 deltas", async () => turn(warm, thread.id, 500));
await warmBench.run();

const bigBench = new Bench({ name: "big", time: 0, iterations: 5, warmupIterations: 1 });
bigBench.add("turn of 20,000 deltas", async () => turn(warm, thread.id, 20_000));
await bigBench.run();

console.table([...spawnBench.table(), ...warmBench.table(), ...bigBench.table()]);

const afterTurns = await warm.client.request("server/diagnostics", {});
await Bun.sleep(SETTLE_MS);
const afterTurnsSettled = await warm.client.request("server/diagnostics", {});
await stop(warm);

// RSS of 100 loaded idle threads in a fresh server
const idle = await spawnServer();
for (let i = 0; i < 100; i++) await idle.client.request("thread/start", { cwd: agent.cwd, model: MODEL });
const withThreads = await idle.client.request("server/diagnostics", {});
await Bun.sleep(SETTLE_MS);
const withThreadsSettled = await idle.client.request("server/diagnostics", {});
await stop(idle);

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const heap = (d: { heapBytes: number }) => `heap ${mb(d.heapBytes)}`;
console.log(
  `server flags: ${BUN_FLAGS.join(" ") || "(none)"}\n` +
    `RSS after the turns: ${mb(afterTurns.rssBytes)} at once (${heap(afterTurns)}), ` +
    `${mb(afterTurnsSettled.rssBytes)} after ${SETTLE_MS / 1000} s quiet (${heap(afterTurnsSettled)})\n` +
    `RSS with 100 idle threads (${withThreads.loadedThreads} loaded): ${mb(withThreads.rssBytes)} at once, ` +
    `${mb(withThreadsSettled.rssBytes)} after ${SETTLE_MS / 1000} s quiet`,
);
await mock.close();
await agent.remove();
