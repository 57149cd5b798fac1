/**
 * The remote listeners against stdio, over real children and the testkit mock:
 *
 * 1. a 500-delta turn (`turn/start` to `turn/completed`, warm process) over `ws://` and
 *    over stdio; target: ws within 1.2x of stdio;
 * 2. 50 clients on 50 threads of one ws:// server, each starting a turn at the same
 *    moment: the p50 and p99 of their first-delta latencies (send of `turn/start` to the
 *    first `item/agentMessage/delta`); target: p99 under 5x p50;
 * 3. the replay buffer's cost per delta (numbering and keeping one delta notification),
 *    in-process, against a loop that only builds the notification.
 *
 * `bun run bench remote`; `--rounds N` repeats the 50-client burst (default 5).
 */
import { Bench } from "tinybench";
import {
  AppServerClient,
  type ServerNotification,
  StreamTransport,
  WebSocketTransport,
} from "../packages/app-server-protocol/src/index.ts";
import {
  knightcodeArgv,
  MOCK_MODEL_ID,
  MOCK_PROVIDERS,
  mockModelsJson,
  spawnServerChild,
  startMockModelServer,
  tempAgentDir,
} from "../packages/testkit/src/index.ts";
import { ReplayBuffer } from "../packages/thread-manager/src/threads/replay-buffer.ts";

const MODEL = { provider: MOCK_PROVIDERS.completions, id: MOCK_MODEL_ID };
const roundsAt = process.argv.indexOf("--rounds");
const ROUNDS = roundsAt < 0 ? 5 : Number(process.argv[roundsAt + 1]) || 5;
const mock = await startMockModelServer();
const agent = await tempAgentDir({ models: mockModelsJson(mock) });
const env = { ...process.env, ...agent.env };

/** Resolves when the thread is idle again (its turn settled: the next start is admitted). */
function idle(client: AppServerClient, threadId: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const off = client.onNotification("thread/status/changed", (p) => {
      if (p.threadId !== threadId || p.status.type !== "idle") return;
      off();
      resolve();
    });
  });
}

/** Resolves at the first notification of `method` for `threadId`. */
function first(
  client: AppServerClient,
  method: "turn/completed" | "item/agentMessage/delta",
  threadId: string,
) {
  return new Promise<void>((resolve) => {
    const off = client.onNotification(method, (p: { threadId: string }) => {
      if (p.threadId !== threadId) return;
      off();
      resolve();
    });
  });
}

/** One turn of `deltas` text deltas on `client`; resolves at `turn/completed` (measured), then waits for idle. */
async function turn(client: AppServerClient, threadId: string, deltas: number): Promise<void> {
  mock.enqueue({ steps: [{ type: "text", text: "w ".repeat(deltas), deltas }] });
  const done = first(client, "turn/completed", threadId);
  await client.request("turn/start", { threadId, text: "go" });
  await done;
}

/** The settle after each measured turn, outside the measurement. */
let settled: Promise<void> = Promise.resolve();

// --- stdio server
const stdioChild = Bun.spawn(knightcodeArgv(["app-server"]), {
  cwd: agent.cwd,
  env,
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
});
const stdio = new AppServerClient(
  new StreamTransport({ readable: stdioChild.stdout, writable: stdioChild.stdin }),
);
await stdio.connect();
await stdio.initialize({ clientInfo: { name: "bench" } });
const stdioThread = (
  await stdio.request("thread/start", { cwd: agent.cwd, model: MODEL, approvalMode: "fullAccess" })
).thread.id;

// --- ws server
const wsServer = spawnServerChild(["--listen", "ws://127.0.0.1:0"], { cwd: agent.cwd, env });
const { url, token } = await wsServer.listening();
async function wsClient(): Promise<AppServerClient> {
  const client = new AppServerClient(new WebSocketTransport(url, { token: token! }));
  await client.connect();
  await client.initialize({ clientInfo: { name: "bench" } });
  return client;
}
const ws = await wsClient();
const wsThread = (
  await ws.request("thread/start", { cwd: agent.cwd, model: MODEL, approvalMode: "fullAccess" })
).thread.id;

const turnBench = new Bench({ name: "500-delta turn", time: 0, iterations: 30, warmupIterations: 3 });
const measured = (client: AppServerClient, threadId: string) => ({
  beforeEach: async () => {
    await settled;
  },
  run: async () => {
    const ready = idle(client, threadId);
    await turn(client, threadId, 500);
    settled = ready;
  },
});
for (const [name, client, threadId] of [
  ["stdio: turn of 500 deltas", stdio, stdioThread],
  ["ws://: turn of 500 deltas", ws, wsThread],
] as const) {
  const task = measured(client, threadId);
  turnBench.add(name, task.run, { beforeEach: task.beforeEach });
}
await turnBench.run();
console.table(turnBench.table());
/** A task's mean latency in ms (NaN when it failed). */
function meanMs(bench: Bench, name: string): number {
  const result = bench.tasks.find((t) => t.name === name)?.result;
  return result && "latency" in result ? result.latency.mean : Number.NaN;
}
const mean = (name: string) => meanMs(turnBench, name);
const ratio = mean("ws://: turn of 500 deltas") / mean("stdio: turn of 500 deltas");
console.log(`500-delta turn: ws:// / stdio = ${ratio.toFixed(2)}x (target <= 1.2x)`);

// --- 50 clients on 50 threads, turns started together
const CLIENTS = 50;
const clients = await Promise.all(Array.from({ length: CLIENTS }, () => wsClient()));
const threads = await Promise.all(
  clients.map(
    async (c) =>
      (await c.request("thread/start", { cwd: agent.cwd, model: MODEL, approvalMode: "fullAccess" })).thread
        .id,
  ),
);
const latencies: number[] = [];
for (let round = 0; round < ROUNDS + 1; round++) {
  const roundLatencies = await Promise.all(
    clients.map(async (client, i) => {
      const threadId = threads[i]!;
      mock.enqueue({ steps: [{ type: "text", text: "w ".repeat(50), deltas: 50 }] });
      const ready = idle(client, threadId);
      const started = performance.now();
      const delta = first(client, "item/agentMessage/delta", threadId).then(
        () => performance.now() - started,
      );
      await client.request("turn/start", { threadId, text: "go" });
      const latency = await delta;
      await ready;
      return latency;
    }),
  );
  // the first round warms the server (module loads, JIT); it is not counted
  if (round > 0) latencies.push(...roundLatencies);
}
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
console.log(
  `${CLIENTS} clients on ${CLIENTS} threads, ${ROUNDS} rounds: first delta p50 ${at(0.5).toFixed(1)} ms, ` +
    `p99 ${at(0.99).toFixed(1)} ms, p99/p50 ${(at(0.99) / at(0.5)).toFixed(2)}x (target < 5x)`,
);
for (const client of [ws, ...clients]) await client.close();
stdioChild.stdin.end();
await stdioChild.exited;
wsServer.child.kill("SIGTERM");
await wsServer.child.exited;

// --- replay buffer cost per delta
const delta = (i: number): ServerNotification => ({
  method: "item/agentMessage/delta",
  params: {
    threadId: "0195f3a0-0000-7000-8000-000000000000",
    turnId: "t-1",
    itemId: "2",
    delta: `word ${i} `,
  },
});
const buffer = new ReplayBuffer();
let sink = 0;
let n = 0;
const replayBench = new Bench({ name: "replay buffer", time: 500, warmupTime: 100 });
replayBench.add("build a delta notification (baseline)", () => {
  sink += delta(n++).method.length;
});
replayBench.add("build + record it in the replay buffer", () => {
  sink += buffer.record(delta(n++));
});
await replayBench.run();
console.table(replayBench.table());
const ns = (name: string) => meanMs(replayBench, name) * 1e6;
console.log(
  `replay buffer: ${(ns("build + record it in the replay buffer") - ns("build a delta notification (baseline)")).toFixed(0)} ns per delta ` +
    `(buffer holds ${buffer.stats().notifications} notifications, ${buffer.stats().bytes} characters; sink ${sink > 0})`,
);
await mock.close();
await agent.remove();
