/**
 * The terminal agent as a user feels it, on the real binary in a pseudo-terminal with the
 * testkit mock as its model:
 *
 * - first frame: spawn to the first drawn editor border;
 * - keypress echo: one typed character to its echo on the terminal;
 * - a 20,000-delta reply through the interactive UI versus print mode, once as one plain
 *   paragraph and once markdown-rich (headings, paragraphs, code blocks, lists): wall
 *   time, CPU time, and (interactive) bytes written to the terminal per delta;
 * - CPU used over 10 idle seconds with the UI up (after 22 s of start-up settling).
 *
 * Targets (issue 13): first frame < 100 ms; the interactive stream within 1.5x of print
 * mode; zero CPU when idle. Misses are reported, not fatal. `--runs N` (default 5).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Terminal } from "@xterm/headless";
import {
  MOCK_MODEL_ID,
  mockDefaultAgentDir,
  startMockModelServer,
  textReply,
} from "../packages/testkit/src/index.ts";

const MAIN = join(import.meta.dir, "..", "apps", "cli", "src", "main.ts");
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg === -1 ? 5 : Number(process.argv[runsArg + 1]) || 5;
const DELTAS = 20_000;
const IDLE_SECONDS = 10;
const IDLE_SETTLE_SECONDS = 22;

const mock = await startMockModelServer();
const agent = await mockDefaultAgentDir(mock);
const env = {
  ...process.env,
  ...agent.env,
  ANTHROPIC_API_KEY: "",
  OPENAI_API_KEY: "",
  TERM: "xterm-256color",
};
/** A reply of DELTAS words, one per delta, ending in a marker to wait for. */
const REPLY = `${Array.from({ length: DELTAS - 1 }, (_, i) => `w${i}`).join(" ")} END-OF-REPLY`;
/**
 * A markdown-rich reply of about DELTAS words: sections of a heading, paragraphs with
 * bold and inline code, a fenced code block and a list, ending in the same marker.
 */
const MARKDOWN_REPLY = (() => {
  const sections: string[] = [];
  for (let i = 0, words = 0; words < DELTAS; i++) {
    const paragraph = Array.from({ length: 60 }, (_, j) =>
      j % 15 === 7 ? `**w${i}x${j}**` : `w${i}x${j}`,
    ).join(" ");
    sections.push(
      `## Section ${i}`,
      `${paragraph} with \`inline${i}\` code.`,
      `\`\`\`ts\nconst value${i} = compute(${i});\n\nreturn value${i};\n\`\`\``,
      `- item ${i} one\n- item ${i} two\n- item ${i} three`,
      paragraph,
    );
    words += 140;
  }
  return `${sections.join("\n\n")}\n\nThe last words END-OF-REPLY`;
})();
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

/** The wall and CPU time of print mode streaming `reply` (whole process). */
async function streamPrint(reply: string): Promise<{ wall: number; cpu: number }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    mock.enqueue(textReply(reply, DELTAS));
    const started = performance.now();
    const child = Bun.spawn([process.execPath, MAIN, "-p", "--no-session", "stream"], {
      cwd: agent.cwd,
      env,
      stdout: "pipe",
      stderr: "inherit",
    });
    const out = await new Response(child.stdout).text();
    await child.exited;
    wall.push(performance.now() - started);
    cpu.push(cpuMs(child.resourceUsage()));
    if (!out.includes("END-OF-REPLY")) {
      throw new Error(`print mode did not print the reply (exit ${child.exitCode}): ${out.slice(0, 200)}`);
    }
  }
  return { wall: median(wall), cpu: median(cpu) };
}

/** The same stream, interactive: whole-process CPU minus a run that only starts and quits. */
async function streamInteractive(reply: string): Promise<{ wall: number; cpu: number; bytes: number }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  const bytes: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const baseline = new Tty(["--no-session"]);
    await baseline.until(MOCK_MODEL_ID);
    await baseline.quit();
    const baseCpu = cpuMs(baseline.proc.resourceUsage());

    mock.enqueue(textReply(reply, DELTAS));
    const tty = new Tty(["--no-session"]);
    await tty.until(MOCK_MODEL_ID);
    const before = tty.bytes;
    tty.output = "";
    const sent = performance.now();
    tty.write("stream\r");
    await tty.until("END-OF-REPLY");
    // the usage arrives in the footer once the reply is final
    await tty.until("↑");
    wall.push(performance.now() - sent);
    bytes.push((tty.bytes - before) / DELTAS);
    await tty.quit();
    cpu.push(cpuMs(tty.proc.resourceUsage()) - baseCpu);
  }
  return { wall: median(wall), cpu: median(cpu), bytes: median(bytes) };
}

for (const [name, reply] of [
  ["plain", REPLY],
  ["markdown", MARKDOWN_REPLY],
] as const) {
  const print = await streamPrint(reply);
  const ui = await streamInteractive(reply);
  const wallRatio = ui.wall / print.wall;
  console.log(
    `20,000-delta ${name} reply, print mode: wall ${print.wall.toFixed(0)} ms (whole process), CPU ${print.cpu.toFixed(0)} ms`,
  );
  console.log(
    `20,000-delta ${name} reply, interactive: wall ${ui.wall.toFixed(0)} ms (Enter to last word), CPU ${ui.cpu.toFixed(0)} ms over a start-and-quit run, ${ui.bytes.toFixed(1)} bytes to the terminal per delta`,
  );
  console.log(
    `${name} interactive / print wall: ${wallRatio.toFixed(2)}x (${verdict(wallRatio <= 1.5)}: within 1.5x)`,
  );
}

// idle CPU
const idle = new Tty();
await idle.until(MOCK_MODEL_ID);
// Let start-up work settle before measuring: the host's load, and two one-off retirements
// in the runtime's own threads (traced per thread through /proc/<pid>/task/*/schedstat):
// JavaScriptCore's block warm-up thread exits after its 10 s idle timeout (~2 ms of CPU),
// and mimalloc's scavenger returns freed memory around 20 s (~1 ms). Neither recurs;
// measured from 20 s on, over 40 s, nothing else runs.
await Bun.sleep(IDLE_SETTLE_SECONDS * 1000);
const bytesBefore = idle.bytes;
const cpuBefore = cpuSeconds(idle.proc.pid);
await Bun.sleep(IDLE_SECONDS * 1000);
const idleCpu = cpuSeconds(idle.proc.pid) - cpuBefore;
const idleBytes = idle.bytes - bytesBefore;
await idle.quit();
console.log(
  `idle: ${(idleCpu * 1000).toFixed(0)} ms CPU and ${idleBytes} bytes written over ${IDLE_SECONDS} s, from ${IDLE_SETTLE_SECONDS} s after the first frame (${verdict(idleCpu === 0 && idleBytes === 0)}: zero)`,
);

await mock.close();
await agent.remove();
