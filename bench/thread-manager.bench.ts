/**
 * The ThreadManager under load: (1) 100 threads started and left loaded and idle, RSS
 * per thread; (2) a turn of 500 text deltas from the testkit mock through the real
 * provider, the agent loop, persistence and the item notifications, start to
 * `thread/turn/completed`. Prints a table and the derived figures.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Bench } from "tinybench";
import { streamModel } from "../packages/ai/src/index.ts";
import {
  type Caller,
  createThreadManager,
  noCompaction,
  staticModelSource,
  type ThreadManagerEvent,
} from "../packages/thread-manager/src/index.ts";
import { textTurnFixture } from "./support/text-turn-fixture.ts";

const DELTAS = 500;
const THREADS = 100;
const { root, cwd, mock, model } = await textTurnFixture("knightcode-tm-bench-", DELTAS);
const manager = createThreadManager({
  agentDir: join(root, "agent"),
  env: {},
  models: staticModelSource([model], { bench: "key" }),
  streamFn: streamModel,
  tools: () => [],
  compaction: noCompaction,
});
const caller: Caller = { connectionId: "bench", clientKind: "desktop" };
let _delivered = 0;
let onCompleted: (() => void) | undefined;
manager.onEvent((event: ThreadManagerEvent) => {
  _delivered += 1;
  if (event.notification.method === "thread/turn/completed") onCompleted?.();
});

// (1) Idle threads. Heap is compared after full collections. RSS is read around the
// starts with no collection in between (collections return pages lazily and made the
// difference swing below zero), after letting the first collection settle; it is an
// upper bound, since it includes garbage made while starting.
for (let i = 0; i < 10; i++)
  await manager.startThread({ cwd }, { connectionId: "warm", clientKind: "desktop" });
Bun.gc(true);
const heapBefore = process.memoryUsage().heapUsed;
await Bun.sleep(200);
const rssBefore = process.memoryUsage().rss;
for (let i = 0; i < THREADS; i++) {
  await manager.startThread({ cwd }, { connectionId: `c${i}`, clientKind: "desktop" });
}
const rssAfter = process.memoryUsage().rss;
Bun.gc(true);
const heapAfter = process.memoryUsage().heapUsed;
const perThreadKiB = (rssAfter - rssBefore) / THREADS / 1024;
const heapPerThreadKiB = (heapAfter - heapBefore) / THREADS / 1024;
const loaded = manager.diagnostics().loadedThreads;

// (2) A 500-delta turn through the manager, on a fresh thread per run so history stays one turn long.
const bench = new Bench({ iterations: 20, warmupIterations: 2 });
let threadId = "";
bench.add(
  `turn of ${DELTAS} deltas (start -> thread/turn/completed)`,
  async () => {
    const done = new Promise<void>((resolve) => {
      onCompleted = resolve;
    });
    await manager.startTurn({ threadId, text: "go" }, caller);
    await done;
  },
  {
    beforeEach: async () => {
      threadId = (await manager.startThread({ cwd }, caller)).thread.id;
    },
  },
);
// (3) A 50-delta turn on one thread that stays loaded: what a chat does turn after turn,
// with what the thread caches between turns (context files, SYSTEM.md) already warm.
const SMALL_DELTAS = 50;
let loadedThreadId = "";
bench.add(
  `turn of ${SMALL_DELTAS} deltas on a loaded thread (start -> thread/turn/completed)`,
  async () => {
    const done = new Promise<void>((resolve) => {
      onCompleted = resolve;
    });
    await manager.startTurn({ threadId: loadedThreadId, text: "go" }, caller);
    await done;
  },
  {
    beforeAll: async () => {
      loadedThreadId = (await manager.startThread({ cwd }, caller)).thread.id;
    },
    beforeEach: () => {
      mock.enqueue({ steps: [{ type: "text", text: "word ".repeat(SMALL_DELTAS), deltas: SMALL_DELTAS }] });
    },
  },
);
await bench.run();
console.table(bench.table());
const task = bench.tasks[0]!;
const stats = task.result && "latency" in task.result ? task.result.latency : undefined;
const meanMs = stats?.mean ?? Number.NaN;
console.log(`loaded idle threads after the idle phase: ${loaded} (${THREADS} measured + 10 warm-up)`);
console.log(`heap per idle loaded thread: ${heapPerThreadKiB.toFixed(1)} KiB`);
console.log(
  `RSS growth per idle loaded thread (upper bound): ${perThreadKiB.toFixed(1)} KiB (${THREADS} threads, ${((rssAfter - rssBefore) / 1048576).toFixed(1)} MiB total)`,
);
console.log(
  `500-delta turn: ${meanMs.toFixed(2)} ms mean, ${Math.round((DELTAS / meanMs) * 1000).toLocaleString("en-US")} deltas/s through the manager`,
);

const small = bench.tasks[1]!;
const smallStats = small.result && "latency" in small.result ? small.result.latency : undefined;
console.log(
  `${SMALL_DELTAS}-delta turn on a loaded thread: ${(smallStats?.mean ?? Number.NaN).toFixed(2)} ms mean`,
);

await manager.closeAll();
await mock.close();
rmSync(root, { recursive: true, force: true });
