/**
 * The real `knightcode` binary in a pseudo-terminal (Bun.spawn's `terminal` option),
 * its output fed to a headless xterm so tests read the screen a user would see. The
 * emulator's answers to terminal queries go back to the program, as a real one's do.
 */

import { knightcodeArgv } from "@knightcode/testkit";
import { Terminal } from "@xterm/headless";

/** Keys as a terminal sends them. */
export const KEYS = {
  enter: "\r",
  altEnter: "\u001b\r",
  escape: "\u001b",
  ctrlC: "\u0003",
  ctrlD: "\u0004",
  ctrlO: "\u000f",
  tab: "\t",
  up: "\u001b[A",
  down: "\u001b[B",
  altUp: "\u001b[1;3A",
  backspace: "\u007f",
} as const;

/** Options for one session. */
export interface PtyOptions {
  cwd: string;
  env: Record<string, string>;
  cols?: number;
  rows?: number;
  /** The window title the terminal shows before the program starts (as if the shell had set it). */
  title?: string;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** A running binary on a pseudo-terminal. */
export class PtySession implements AsyncDisposable {
  private readonly screen: Terminal;
  private readonly proc: ReturnType<typeof Bun.spawn>;
  private readonly waiters = new Set<() => void>();
  /** Every byte the program wrote, for diagnostics and byte counts. */
  bytesWritten = 0;
  /** Everything the program wrote, as text: escape sequences and all. */
  raw = "";
  private readonly decoder = new TextDecoder();
  /** The window title, as the program last set it (OSC 0/2, or a title-stack pop). */
  title = "";
  readonly exited: Promise<number>;

  constructor(args: string[], options: PtyOptions) {
    const cols = options.cols ?? 100;
    const rows = options.rows ?? 30;
    this.screen = new Terminal({
      cols,
      rows,
      scrollback: 5000,
      allowProposedApi: true,
      windowOptions: { pushTitle: true, popTitle: true },
    });
    this.screen.onTitleChange((title) => {
      this.title = title;
    });
    if (options.title !== undefined)
      this.screen.write(`\u001b]0;${options.title}\u0007`, () => this.notify());
    this.proc = Bun.spawn(knightcodeArgv(args), {
      cwd: options.cwd,
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: "",
        OPENAI_API_KEY: "",
        TERM: "xterm-256color",
        ...options.env,
      },
      terminal: {
        cols,
        rows,
        data: (_term, data) => {
          this.bytesWritten += data.byteLength;
          this.raw += this.decoder.decode(data, { stream: true });
          this.screen.write(data, () => this.notify());
        },
      },
    });
    // the emulator's replies to queries (cursor position, device attributes) go back as input
    this.screen.onData((reply) => this.proc.terminal?.write(reply));
    this.exited = this.proc.exited.then((code) => {
      this.notify();
      return code;
    });
  }

  /** The program's process ID (execve keeps it across a restart). */
  get pid(): number {
    return this.proc.pid;
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Everything on the screen and in its scrollback, lines trimmed at the right. */
  text(): string {
    const buffer = this.screen.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
    return lines.join("\n").replace(/\n+$/, "");
  }

  /** The visible rows only. */
  visible(): string[] {
    const buffer = this.screen.buffer.active;
    const rows: string[] = [];
    for (let i = 0; i < this.screen.rows; i++)
      rows.push(buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? "");
    return rows;
  }

  /** Waits until `check` holds for the screen text; fails with the screen after `timeoutMs`. */
  async waitFor(
    check: string | RegExp | ((text: string) => boolean),
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<string> {
    const test =
      typeof check === "string"
        ? (t: string) => t.includes(check)
        : check instanceof RegExp
          ? (t: string) => check.test(t)
          : check;
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const text = this.text();
        if (!test(text)) return false;
        cleanup();
        resolve(text);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${String(check)}; the screen shows:\n${this.text()}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      const waiter = () => void attempt();
      this.waiters.add(waiter);
      attempt();
    });
  }

  /** Types raw input. */
  /**
   * Waits until `text` is on screen and the turn has ended (the working line, which says
   * "Esc to interrupt", is gone): a reply's text shows before the turn settles.
   */
  waitForTurnEnd(text: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<string> {
    return this.waitFor((screen) => screen.includes(text) && !screen.includes("Esc to interrupt"), timeoutMs);
  }

  write(data: string): void {
    this.proc.terminal?.write(data);
  }

  /** Types text, then a key. */
  type(text: string, key: string = KEYS.enter): void {
    this.write(text);
    if (key !== "") this.write(key);
  }

  /** Resizes both the pseudo-terminal (the program gets SIGWINCH) and the emulator. */
  resize(cols: number, rows: number): void {
    this.screen.resize(cols, rows);
    this.proc.terminal?.resize(cols, rows);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.proc.exitCode === null) this.proc.kill();
    await this.proc.exited;
    this.proc.terminal?.close();
    this.screen.dispose();
  }
}
