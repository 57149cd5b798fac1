/**
 * How fast `knightcode app-server` gets a large reply to a client that reads its stdout
 * as fast as it can, and what the reply costs in memory. The mock streams a 50 MiB reply
 * in 1 KiB deltas flat out; the client counts stdout bytes from `turn/start` to
 * `turn/completed`. Prints MB/s of JSON lines (per wall second, and per second of the
 * server's CPU time, which a loaded machine does not skew) and the server's peak RSS
 * (VmHWM) over the RSS it had before the turn. `--mib N` changes the reply size, `--runs N` the repeats.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  MOCK_MODEL_ID,
  MOCK_PROVIDERS,
  mockModelsJson,
  startMockModelServer,
  tempAgentDir,
} from "../packages/testkit/src/index.ts";

const MAIN = join(import.meta.dir, "..", "apps", "cli", "src", "main.ts");
const MODEL = { provider: MOCK_PROVIDERS.completions, id: MOCK_MODEL_ID };
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const MIB = arg("--mib", 50);
const RUNS = arg("--runs", 3);
const DELTA_BYTES = 1024;

const mock = await startMockModelServer();
const agent = await tempAgentDir({ models: mockModelsJson(mock) });

/** A line-level client on raw pipes: only lines it waits for are parsed. */
function rawClient(child: Bun.Subprocess<"pipe", "pipe", "inherit">) {
  let nextId = 1;
  let bytes = 0;
  let firstChunkAt: number | undefined;
  let watchFirst = false;
  const waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of child.stdout) {
      bytes += chunk.byteLength;
      if (watchFirst && firstChunkAt === undefined) firstChunkAt = performance.now();
      if (waiters.length === 0) continue;
      rest += decoder.decode(chunk, { stream: true });
      let nl = rest.indexOf("\n");
      while (nl !== -1) {
        const line = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        for (const w of [...waiters]) {
          if (!w.match(line)) continue;
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
        nl = rest.indexOf("\n");
      }
    }
  })();
  const wait = (match: (line: string) => boolean) =>
    new Promise<string>((resolve) => waiters.push({ match, resolve }));
  return {
    bytes: () => bytes,
    /** From now on, remembers when the next chunk arrives (the reply's first bytes). */
    watchFirstChunk() {
      watchFirst = true;
      firstChunkAt = undefined;
    },
    firstChunkAt: () => firstChunkAt,
    wait,
    async request(method: string, params: unknown): Promise<Record<string, unknown>> {
      const id = nextId++;
      const answered = wait((line) => line.startsWith(`{"id":${id},`));
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
      child.stdin.flush();
      const line = await answered;
      return JSON.parse(line) as Record<string, unknown>;
    },
    notify(method: string, params: unknown) {
      child.stdin.write(`${JSON.stringify({ method, params })}\n`);
      child.stdin.flush();
    },
  };
}

/** CPU seconds (user + system) the process has used, from /proc (clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function vm(pid: number, field: "VmHWM" | "VmRSS"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

const results: {
  run: number;
  mbPerSec: number;
  mbPerCpuSec: number;
  stdoutMiB: number;
  seconds: number;
  peakOverBaseMiB: number;
}[] = [];
for (let run = 1; run <= RUNS; run++) {
  const flags = process.env.KC_BENCH_SERVER_FLAGS?.split(" ").filter(Boolean) ?? [];
  const child = Bun.spawn([process.execPath, ...flags, MAIN, "app-server"], {
    cwd: agent.cwd,
    env: { ...process.env, ...agent.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const client = rawClient(child);
  await client.request("initialize", { clientInfo: { name: "bench" } });
  client.notify("initialized", {});
  const started = (await client.request("thread/start", { cwd: agent.cwd, model: MODEL })) as {
    result: { thread: { id: string } };
  };
  const threadId = started.result.thread.id;
  // warm-up turn, then the baseline RSS
  mock.enqueue({ steps: [{ type: "text", text: "w ".repeat(500), deltas: 50 }] });
  let done = client.wait((line) => line.includes(`"method":"turn/completed"`));
  await client.request("turn/start", { threadId, text: "warm" });
  await done;
  const base = vm(child.pid, "VmRSS");
  const text = "x".repeat(MIB * 1024 * 1024);
  mock.enqueue({ steps: [{ type: "text", text, deltas: Math.ceil(text.length / DELTA_BYTES) }] });
  done = client.wait((line) => line.includes(`"method":"turn/completed"`));
  const from = client.bytes();
  const cpuFrom = cpuSeconds(child.pid);
  const t0 = performance.now();
  // the mock renders the whole reply before its first byte; the clock starts at the reply's first byte
  const answered = client.request("turn/start", { threadId, text: "go" });
  const trace: string[] = [];
  const sampler = process.argv.includes("--trace")
    ? setInterval(() => {
        trace.push(
          `${((performance.now() - t0) / 1000).toFixed(2)}s out ${Math.round((client.bytes() - from) / 1048576)}MiB rss ${Math.round(vm(child.pid, "VmRSS") / 1048576)}MiB`,
        );
      }, 100)
    : undefined;
  await answered;
  client.watchFirstChunk();
  await done;
  clearInterval(sampler);
  if (trace.length > 0) console.log(trace.join("\n"));
  const seconds = (performance.now() - (client.firstChunkAt() ?? t0)) / 1000;
  const peak = vm(child.pid, "VmHWM");
  const cpu = cpuSeconds(child.pid) - cpuFrom;
  const stdoutBytes = client.bytes() - from;
  results.push({
    run,
    mbPerSec: Math.round(stdoutBytes / 1e6 / seconds),
    // the server's own CPU time: on a shared, loaded machine wall time mostly measures the load
    mbPerCpuSec: Math.round(stdoutBytes / 1e6 / cpu),
    stdoutMiB: Math.round(stdoutBytes / 1024 / 1024),
    seconds: Number(seconds.toFixed(2)),
    peakOverBaseMiB: Math.round((peak - base) / 1024 / 1024),
  });
  child.stdin.end();
  await child.exited;
}
console.table(results);
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `${MIB} MiB reply: median ${median(results.map((r) => r.mbPerSec))} MB/s of JSON lines to a reading client ` +
    `(${median(results.map((r) => r.mbPerCpuSec))} MB per second of server CPU), ` +
    `peak RSS +${median(results.map((r) => r.peakOverBaseMiB))} MiB over the pre-turn RSS`,
);
await mock.close();
await agent.remove();
