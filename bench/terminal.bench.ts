/**
 * The terminal agent as a user feels it, on the real binary in a pseudo-terminal with the
 * testkit mock as its model:
 *
 * - first frame: spawn to the first drawn editor border;
 * - keypress echo: one typed character to its echo on the terminal;
 * - a 20,000-delta reply through the interactive UI versus print mode: wall time, CPU
 *   time, and (interactive) bytes written to the terminal per delta;
 * - CPU used over 10 idle seconds with the UI up.
 *
 * Targets (issue 13): first frame < 100 ms; the interactive stream within 1.5x of print
 * mode; zero CPU when idle. Misses are reported, not fatal. `--runs N` (default 5).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Terminal } from "@xterm/headless";
import {
  MOCK_MODEL_ID,
  MOCK_PROVIDERS,
  mockModelsJson,
  startMockModelServer,
  tempAgentDir,
  textReply,
} from "../packages/testkit/src/index.ts";

const MAIN = join(import.meta.dir, "..", "apps", "cli", "src", "main.ts");
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg === -1 ? 5 : Number(process.argv[runsArg + 1]) || 5;
const DELTAS = 20_000;
const IDLE_SECONDS = 10;

const mock = await startMockModelServer();
const agent = await tempAgentDir({
  models: mockModelsJson(mock),
  settings: { defaultProvider: MOCK_PROVIDERS.completions, defaultModel: MOCK_MODEL_ID },
});
const env = {
  ...process.env,
  ...agent.env,
  ANTHROPIC_API_KEY: "",
  OPENAI_API_KEY: "",
  TERM: "xterm-256color",
};
/** A reply of DELTAS words, one per delta, ending in a marker to wait for. */
const REPLY = `${Array.from({ length: DELTAS - 1 }, (_, i) => `w${i}`).join(" ")} END-OF-REPLY`;
const decoder = new TextDecoder();

/** CPU seconds a process has used so far (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The binary on a pseudo-terminal, with waits on what it writes. */
class Tty {
  output = "";
  bytes = 0;
  private waiters: (() => void)[] = [];
  readonly proc: ReturnType<typeof Bun.spawn>;
  readonly spawnedAt = performance.now();
  /** A real terminal emulator behind the pty, so the program's queries get their answers. */
  private readonly screen = new Terminal({ cols: 120, rows: 40, allowProposedApi: true });
  constructor(args: string[] = []) {
    this.proc = Bun.spawn([process.execPath, MAIN, ...args], {
      cwd: agent.cwd,
      env,
      terminal: {
        cols: 120,
        rows: 40,
        data: (_t, data) => {
          this.bytes += data.byteLength;
          this.screen.write(data);
          // keep only the tail: markers are searched near the end
          this.output = (this.output + decoder.decode(data)).slice(-4096);
          for (const w of this.waiters.splice(0)) w();
        },
      },
    });
    this.screen.onData((reply) => this.proc.terminal?.write(reply));
  }
  async until(text: string): Promise<number> {
    while (!this.output.includes(text)) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return performance.now();
  }
  write(data: string): void {
    this.proc.terminal?.write(data);
  }
  async quit(): Promise<void> {
    // Ctrl+C clears the editor, a second one exits
    this.write("\u0003");
    await this.until("again to exit");
    this.write("\u0003");
    await this.proc.exited;
    this.proc.terminal?.close();
    this.screen.dispose();
  }
}

/** CPU milliseconds of a finished child (resourceUsage reports microseconds). */
function cpuMs(usage: { cpuTime: { user: number | bigint; system: number | bigint } } | undefined): number {
  if (usage === undefined) return Number.NaN;
  return (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const verdict = (ok: boolean) => (ok ? "meets target" : "MISSES target");

// first frame and keypress echo
const firstFrames: number[] = [];
const echoes: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const tty = new Tty();
  // the editor's border is the first thing drawn
  firstFrames.push((await tty.until("─")) - tty.spawnedAt);
  await tty.until(MOCK_MODEL_ID);
  for (let i = 0; i < 10; i++) {
    tty.output = "";
    // letters and digits also occur in escape sequences; these do not
    const key = "ΩΨΦΣΠΛΘΔΓΞ"[i]!;
    const typed = performance.now();
    tty.write(key);
    echoes.push((await tty.until(key)) - typed);
  }
  await tty.quit();
}
console.log(
  `first frame: median ${median(firstFrames).toFixed(1)} ms over ${RUNS} spawns (${verdict(median(firstFrames) < 100)}: < 100 ms)`,
);
console.log(`keypress echo: median ${median(echoes).toFixed(2)} ms over ${echoes.length} keys`);

// the 20,000-delta stream, print mode
const printWall: number[] = [];
const printCpu: number[] = [];
for (let run = 0; run < RUNS; run++) {
  mock.enqueue(textReply(REPLY, DELTAS));
  const started = performance.now();
  const child = Bun.spawn([process.execPath, MAIN, "-p", "--no-session", "stream"], {
    cwd: agent.cwd,
    env,
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(child.stdout).text();
  await child.exited;
  printWall.push(performance.now() - started);
  const usage = child.resourceUsage();
  printCpu.push(cpuMs(usage));
  if (!out.includes("END-OF-REPLY")) {
    throw new Error(`print mode did not print the reply (exit ${child.exitCode}): ${out.slice(0, 200)}`);
  }
}

// the same stream, interactive: whole-process CPU minus a run that only starts and quits
const uiWall: number[] = [];
const uiCpu: number[] = [];
const uiBytes: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const baseline = new Tty(["--no-session"]);
  await baseline.until(MOCK_MODEL_ID);
  await baseline.quit();
  const base = baseline.proc.resourceUsage();
  const baseCpu = cpuMs(base);

  mock.enqueue(textReply(REPLY, DELTAS));
  const tty = new Tty(["--no-session"]);
  await tty.until(MOCK_MODEL_ID);
  const before = tty.bytes;
  tty.output = "";
  const sent = performance.now();
  tty.write("stream\r");
  await tty.until("END-OF-REPLY");
  // the usage arrives in the footer once the reply is final
  await tty.until("↑");
  uiWall.push(performance.now() - sent);
  uiBytes.push((tty.bytes - before) / DELTAS);
  await tty.quit();
  const usage = tty.proc.resourceUsage();
  uiCpu.push(cpuMs(usage) - baseCpu);
}
const wallRatio = median(uiWall) / median(printWall);
console.log(
  `20,000-delta reply, print mode: wall ${median(printWall).toFixed(0)} ms (whole process), CPU ${median(printCpu).toFixed(0)} ms`,
);
console.log(
  `20,000-delta reply, interactive: wall ${median(uiWall).toFixed(0)} ms (Enter to last word), CPU ${median(uiCpu).toFixed(0)} ms over a start-and-quit run, ${median(uiBytes).toFixed(1)} bytes to the terminal per delta`,
);
console.log(`interactive / print wall: ${wallRatio.toFixed(2)}x (${verdict(wallRatio <= 1.5)}: within 1.5x)`);

// idle CPU
const idle = new Tty();
await idle.until(MOCK_MODEL_ID);
// let start-up work (host load, idle collection) settle before measuring
await Bun.sleep(2000);
const bytesBefore = idle.bytes;
const cpuBefore = cpuSeconds(idle.proc.pid);
await Bun.sleep(IDLE_SECONDS * 1000);
const idleCpu = cpuSeconds(idle.proc.pid) - cpuBefore;
const idleBytes = idle.bytes - bytesBefore;
await idle.quit();
console.log(
  `idle: ${(idleCpu * 1000).toFixed(0)} ms CPU and ${idleBytes} bytes written over ${IDLE_SECONDS} s (${verdict(idleCpu === 0 && idleBytes === 0)}: zero)`,
);

await mock.close();
await agent.remove();
