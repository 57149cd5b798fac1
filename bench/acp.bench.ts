/**
 * What `knightcode acp` adds over the app-server stream it translates. Two children on
 * one testkit mock: `knightcode app-server` (driven by `AppServerClient`) and
 * `knightcode acp` (driven by a bare JSON-lines client, so neither side pays for client
 * validation). Measures request → first text chunk (`turn/start` → first
 * `item/agentMessage/delta`, `session/prompt` → first `agent_message_chunk`) and whole
 * turns of 10 and 2,000 deltas; the per-delta cost is the difference of the two turn
 * lengths over 1,990 deltas. Target: ACP adds < 1 ms to the first chunk and < 10 % per delta.
 */
import { join } from "node:path";
import { Bench } from "tinybench";
import { AppServerClient, StreamTransport } from "../packages/app-server-protocol/src/index.ts";
import { mockDefaultAgentDir, startMockModelServer, streamLines } from "../packages/testkit/src/index.ts";

const MAIN = join(import.meta.dir, "..", "apps", "cli", "src", "main.ts");
const mock = await startMockModelServer();
const agent = await mockDefaultAgentDir(mock);
const reply = (deltas: number) => ({ steps: [{ type: "text" as const, text: "w ".repeat(deltas), deltas }] });

// --- the app server, as a desktop app drives it
const serverChild = Bun.spawn([process.execPath, MAIN, "app-server"], {
  cwd: agent.cwd,
  env: { ...process.env, ...agent.env },
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
});
const server = new AppServerClient(
  new StreamTransport({ readable: serverChild.stdout, writable: serverChild.stdin }),
);
await server.connect();
await server.initialize({ clientInfo: { name: "bench" } });
const { thread } = await server.request("thread/start", { cwd: agent.cwd });

/** One app-server turn; resolves at the first delta and at completion. */
function serverTurn(deltas: number): { first: Promise<void>; done: Promise<void> } {
  mock.enqueue(reply(deltas));
  const first = Promise.withResolvers<void>();
  const done = Promise.withResolvers<void>();
  const offDelta = server.onNotification("item/agentMessage/delta", () => {
    offDelta();
    first.resolve();
  });
  const offDone = server.onNotification("turn/completed", (p) => {
    if (p.threadId !== thread.id) return;
    offDone();
    done.resolve();
  });
  void server.request("turn/start", { threadId: thread.id, text: "go" });
  return { first: first.promise, done: done.promise };
}

// --- `knightcode acp`, as an editor drives it
const acpChild = Bun.spawn([process.execPath, MAIN, "acp"], {
  cwd: agent.root,
  env: { ...process.env, ...agent.env },
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
});
type Listener = (message: Record<string, unknown>) => void;
const listeners = new Set<Listener>();
void (async () => {
  for await (const line of streamLines(acpChild.stdout)) {
    const message = JSON.parse(line) as Record<string, unknown>;
    for (const listener of [...listeners]) listener(message);
  }
})();
let nextId = 1;
function acpRequest(method: string, params: unknown): Promise<Record<string, unknown>> {
  const id = nextId++;
  const answered = new Promise<Record<string, unknown>>((resolve) => {
    const listener: Listener = (m) => {
      if (m.id !== id || "method" in m) return;
      listeners.delete(listener);
      resolve(m);
    };
    listeners.add(listener);
  });
  acpChild.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  acpChild.stdin.flush();
  return answered;
}
await acpRequest("initialize", { protocolVersion: 1, clientCapabilities: {} });
const created = await acpRequest("session/new", { cwd: agent.cwd, mcpServers: [] });
const sessionId = (created.result as { sessionId: string }).sessionId;
await acpRequest("session/set_mode", { sessionId, modeId: "ask" });

/** One ACP prompt; resolves at the first text chunk and at the prompt's answer. */
function acpTurn(deltas: number): { first: Promise<void>; done: Promise<void> } {
  mock.enqueue(reply(deltas));
  const first = Promise.withResolvers<void>();
  const listener: Listener = (m) => {
    if (m.method !== "session/update") return;
    if ((m.params as { update: { sessionUpdate: string } }).update.sessionUpdate !== "agent_message_chunk")
      return;
    listeners.delete(listener);
    first.resolve();
  };
  listeners.add(listener);
  const done = acpRequest("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] }).then(
    () => {},
  );
  return { first: first.promise, done };
}

// warm both processes (model SDK loaded, first requests paid for)
for (let i = 0; i < 5; i++) {
  await serverTurn(10).done;
  await acpTurn(10).done;
}

const bench = new Bench({ name: "acp", time: 0, iterations: 20, warmupIterations: 2 });
let pending: Promise<void> | undefined;
const settle = { afterEach: async () => void (await pending) };
bench.add(
  "app-server: turn/start → first delta",
  async () => {
    const turn = serverTurn(10);
    pending = turn.done;
    await turn.first;
  },
  settle,
);
bench.add(
  "acp: session/prompt → first agent_message_chunk",
  async () => {
    const turn = acpTurn(10);
    pending = turn.done;
    await turn.first;
  },
  settle,
);
bench.add("app-server: turn of 2,000 deltas", async () => serverTurn(2_000).done);
bench.add("acp: prompt of 2,000 deltas", async () => acpTurn(2_000).done);
await bench.run();
console.table(bench.table());

/**
 * The comparison itself from paired samples: the machine is shared, so each pair runs
 * both sides back to back (in alternating order) and the medians of per-pair
 * differences cancel most of the drift that separate task runs would pick up.
 */
async function timed(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}
async function firstChunk(turn: () => { first: Promise<void>; done: Promise<void> }): Promise<number> {
  const started = performance.now();
  const t = turn();
  await t.first;
  const elapsed = performance.now() - started;
  await t.done;
  return elapsed;
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const PAIRS = 40;
const firstDiffs: number[] = [];
const perDelta = { server: [] as number[], acp: [] as number[] };
for (let i = 0; i < PAIRS; i++) {
  const serverFirst = i % 2 === 0;
  const sides = serverFirst ? (["server", "acp"] as const) : (["acp", "server"] as const);
  const first: Record<string, number> = {};
  for (const side of sides)
    first[side] = await firstChunk(() => (side === "server" ? serverTurn(10) : acpTurn(10)));
  firstDiffs.push(first.acp! - first.server!);
  for (const side of sides) {
    const big = await timed(() => (side === "server" ? serverTurn(2_000) : acpTurn(2_000)).done);
    const small = await timed(() => (side === "server" ? serverTurn(10) : acpTurn(10)).done);
    perDelta[side].push((big - small) / 1_990);
  }
}
const serverDelta = median(perDelta.server);
const acpDelta = median(perDelta.acp);
const ratios = perDelta.acp.map((a, i) => a / perDelta.server[i]! - 1);
console.log(
  `${PAIRS} pairs: ACP adds ${median(firstDiffs).toFixed(2)} ms (median of differences) to the first chunk ` +
    `(target < 1 ms); per delta ${(acpDelta * 1000).toFixed(1)} µs against ${(serverDelta * 1000).toFixed(1)} µs, ` +
    `median per-pair overhead ${(median(ratios) * 100).toFixed(1)} % (target < 10 %)`,
);

serverChild.stdin.end();
acpChild.stdin.end();
await Promise.all([serverChild.exited, acpChild.exited]);
await mock.close();
await agent.remove();
