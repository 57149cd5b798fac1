/**
 * What extensions cost: `thread/start` (through the ThreadManager, with the real
 * extension runtime) with 0 and with 10 extensions, first load (fresh files, fresh cache)
 * and cached; and a 500-delta turn with 10 no-op handlers on every event (`message_update`
 * once per delta) versus none. Targets: 10 cached extensions add < 5 ms to thread/start;
 * dispatch adds < 5% to the turn.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Bench } from "tinybench";
import { createLocalOperations } from "../packages/agent/src/index.ts";
import { streamModel } from "../packages/ai/src/index.ts";
import {
  createExtensionHostFactory,
  createNoUI,
  ExtensionRunner,
  FactoryCache,
} from "../packages/extensions/src/index.ts";
import { threadHooks } from "../packages/extensions/src/thread-hooks.ts";
import {
  type Caller,
  createThreadManager,
  noCompaction,
  staticModelSource,
  type ThreadManagerEvent,
} from "../packages/thread-manager/src/index.ts";
import { textTurnFixture } from "./support/text-turn-fixture.ts";

const DELTAS = 500;
const EXTENSIONS = 10;
const EVENTS = [
  "session_start",
  "session_shutdown",
  "input",
  "before_agent_start",
  "turn_start",
  "turn_end",
  "agent_end",
  "agent_before_settle",
  "context",
  "message_start",
  "message_update",
  "message_end",
  "tool_call",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "tool_result",
  "before_provider_request",
  "after_provider_response",
];
const NOOP = `export default function (k) {\n${EVENTS.map((e) => `  k.on("${e}", () => undefined);`).join("\n")}\n}\n`;

const { root, cwd, mock, model } = await textTurnFixture("knightcode-ext-bench-", DELTAS);

let generation = 0;
/** Ten no-op extensions in a fresh folder (new paths: nothing cached). */
function freshExtensions(): string[] {
  generation++;
  const dir = join(root, `ext-${generation}`);
  mkdirSync(dir, { recursive: true });
  return Array.from({ length: EXTENSIONS }, (_, i) => {
    const path = join(dir, `noop-${i}.js`);
    writeFileSync(path, NOOP);
    return path;
  });
}

const caller: Caller = { connectionId: "bench", clientKind: "desktop" };
let onCompleted: (() => void) | undefined;
function manager(extensionPaths: string[], cache = new FactoryCache()) {
  const m = createThreadManager({
    agentDir: join(root, "agent"),
    env: {},
    models: staticModelSource([model], { bench: "key" }),
    streamFn: streamModel,
    tools: () => [],
    compaction: noCompaction,
    extensionHostFactory: createExtensionHostFactory({ cache }),
    extensionPaths,
    idleUnloadMs: 60 * 60 * 1000,
  });
  m.onEvent((event: ThreadManagerEvent) => {
    if (event.notification.method === "thread/turn/completed") onCompleted?.();
  });
  return m;
}

const none = manager([]);
const cachedPaths = freshExtensions();
const withTen = manager(cachedPaths);
await withTen.startThread({ cwd }, caller); // fills the cache

const starts = new Bench({ iterations: 40, warmupIterations: 3 });
starts.add("thread/start, 0 extensions", async () => {
  await none.startThread({ cwd }, caller);
});
starts.add(`thread/start, ${EXTENSIONS} extensions (cached)`, async () => {
  await withTen.startThread({ cwd }, caller);
});
let firstLoad = manager([]);
starts.add(
  `thread/start, ${EXTENSIONS} extensions (first load: new files, empty cache)`,
  async () => {
    await firstLoad.startThread({ cwd }, caller);
  },
  {
    beforeEach: () => {
      firstLoad = manager(freshExtensions());
    },
  },
);
await starts.run();
console.table(starts.table());

const turns = new Bench({ iterations: 20, warmupIterations: 2 });
let threadId = "";
for (const [label, m] of [
  ["no handlers", none],
  [`${EXTENSIONS} no-op handlers on every event`, withTen],
] as const) {
  turns.add(
    `turn of ${DELTAS} deltas, ${label}`,
    async () => {
      const done = new Promise<void>((resolve) => {
        onCompleted = resolve;
      });
      await m.startTurn({ threadId, text: "go" }, caller);
      await done;
    },
    {
      beforeEach: async () => {
        threadId = (await m.startThread({ cwd }, caller)).thread.id;
      },
    },
  );
}
await turns.run();
console.table(turns.table());

// medians: on a shared machine a few slow samples move the mean more than the code does
// The dispatch cost alone, without the turn's I/O: one event through 10 no-op handlers.
const runner = new ExtensionRunner({
  threadId: "bench",
  cwd,
  mode: "desktop",
  hasUI: false,
  ui: createNoUI(),
  port: undefined,
  hookTimeoutMs: 30_000,
  warn: () => {},
  builtinToolNames: [],
  toolOperations: createLocalOperations(),
});
for (let i = 0; i < EXTENSIONS; i++) {
  await runner.load(`/bench/noop-${i}.js`, (k) => {
    for (const event of EVENTS) k.on(event as "input", () => undefined);
  });
}
const hooks = threadHooks(runner, "rpc");
const dispatch = new Bench({ iterations: 2000, warmupIterations: 100 });
dispatch.add(`one event through ${EXTENSIONS} no-op handlers (turn_end)`, async () => {
  await hooks.turnEnd!({ turnId: "t", message: {} as never, toolResults: [] });
});
const delta = { message: {} as never, assistantMessageEvent: {} as never };
dispatch.add(`one message_update delta through ${EXTENSIONS} no-op handlers`, () => {
  hooks.messageUpdate!(delta);
});
await dispatch.run();
console.table(dispatch.table());

const mean = (bench: Bench, i: number) => {
  const result = bench.tasks[i]!.result;
  return result && "latency" in result ? result.latency.p50 : Number.NaN;
};
const startAdded = mean(starts, 1) - mean(starts, 0);
const turnAdded = (mean(turns, 1) / mean(turns, 0) - 1) * 100;
console.log(
  `${EXTENSIONS} cached extensions add ${startAdded.toFixed(2)} ms (median) to thread/start (target < 5 ms)`,
);
console.log(
  `first load of ${EXTENSIONS} extensions adds ${(mean(starts, 2) - mean(starts, 0)).toFixed(2)} ms`,
);
console.log(
  `${EXTENSIONS} no-op handlers on every event add ${turnAdded.toFixed(1)}% (median) to a ${DELTAS}-delta turn (target < 5%)`,
);

// End-to-end turn figures swing with the machine's load; the dispatch cost is the stable part.
const perEvent = mean(dispatch, 0);
const perDelta = mean(dispatch, 1);
// message_update comes once per delta, every other event about once per turn
const perTurn = perEvent * (EVENTS.length - 1) + perDelta * DELTAS;
console.log(
  `one event through ${EXTENSIONS} no-op handlers: ${(perEvent * 1000).toFixed(1)} us (median); one message_update delta: ${(perDelta * 1000).toFixed(2)} us; ${EVENTS.length - 1} events and ${DELTAS} deltas per turn = ${perTurn.toFixed(3)} ms, ${((perTurn / mean(turns, 0)) * 100).toFixed(2)}% of the median plain turn`,
);

await Promise.all([none.closeAll(), withTen.closeAll(), firstLoad.closeAll()]);
await mock.close();
rmSync(root, { recursive: true, force: true });
