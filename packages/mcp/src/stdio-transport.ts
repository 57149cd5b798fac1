/**
 * The stdio transport to an MCP server child process. The SDK's own stdio client always
 * adds its default inherited variables (USER, SHELL, TERM...) to the environment; ours
 * passes exactly the environment it is given. It also runs the server in its own process
 * group, so stopping it stops what it spawned (`npx` wrappers), and hands stderr lines
 * to the caller instead of inheriting our stderr unlabelled.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How to start the server. */
export interface StdioServerProcess {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
}

/** What the transport reports besides messages. */
export interface StdioTransportEvents {
  /** One line the server wrote on stderr, without its newline. */
  stderrLine(line: string): void;
  /** A stdout line that is not a JSON-RPC message; it is skipped. */
  junkLine(error: Error): void;
  /** The process ended (after `close()` too). */
  exited(code: number | null, signal: NodeJS.Signals | null): void;
}

/** Grace periods while stopping: stdin closed, then SIGTERM, then SIGKILL. */
const STDIN_CLOSE_GRACE_MS = 500;
const SIGTERM_GRACE_MS = 1000;

/**
 * The SDK's `Transport` over a child process's stdin and stdout. It does not say
 * `implements Transport`: that would put the SDK's transport declarations, which need
 * DOM's `HeadersInit`, in our public `.d.ts`, and a consumer without `lib: ["DOM"]`
 * would fail to type-check. `#createTransport`'s return type (server-connection.ts) checks
 * the shape instead.
 */
export class ChildStdioTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  #closed = false;
  readonly #buffer = new ReadBuffer();
  #stderrTail = "";

  constructor(
    private readonly process: StdioServerProcess,
    private readonly events: StdioTransportEvents,
  ) {}

  /** The server's pid once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error("ChildStdioTransport already started");
    return new Promise((resolve, reject) => {
      const child = spawn(this.process.command, [...this.process.args], {
        env: this.process.env,
        cwd: this.process.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        shell: false,
      });
      this.#child = child;
      this.#exited = new Promise((done) => child.once("close", () => done()));
      let spawned = false;
      child.once("spawn", () => {
        spawned = true;
        resolve();
      });
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once("close", (code, signal) => {
        this.#flushStderr();
        // A command that never ran (not found) is reported by the spawn error alone.
        if (spawned) this.events.exited(code ?? null, signal ?? null);
        this.#closed = true;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.#onStdout(chunk));
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (text: string) => this.#onStderr(text));
    });
  }

  #onStdout(chunk: Buffer): void {
    try {
      this.#buffer.append(chunk);
    } catch (error) {
      // Over the buffer cap without a newline: nothing sensible can follow.
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        // The bad line is already consumed; the next one may be fine.
        this.events.junkLine(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  #onStderr(text: string): void {
    const lines = (this.#stderrTail + text).split("\n");
    this.#stderrTail = lines.pop() ?? "";
    for (const line of lines) this.events.stderrLine(line.replace(/\r$/, ""));
  }

  #flushStderr(): void {
    if (this.#stderrTail.length > 0) this.events.stderrLine(this.#stderrTail);
    this.#stderrTail = "";
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (!stdin || this.#closed || stdin.destroyed) {
        reject(new Error("The MCP server process is not running"));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  /** Stops the server: closes its stdin, then signals its process group until it exits. */
  async close(): Promise<void> {
    const child = this.#child;
    const exited = this.#exited;
    if (!child || !exited) return;
    if (!this.#closed) {
      child.stdin?.end();
      if (!(await settlesWithin(exited, STDIN_CLOSE_GRACE_MS))) {
        signalGroup(child, "SIGTERM");
        if (!(await settlesWithin(exited, SIGTERM_GRACE_MS))) signalGroup(child, "SIGKILL");
      }
    }
    // A server whose own children still hold its pipes is gone once its group is killed.
    await settlesWithin(exited, SIGTERM_GRACE_MS);
    this.#buffer.clear();
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // The group is gone already; signal the child alone in case it left the group.
    try {
      child.kill(signal);
    } catch {
      // Already exited.
    }
  }
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
