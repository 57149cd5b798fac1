/**
 * Collects a process's output for the `bash` tool: keeps a bounded tail in memory and,
 * once the output outgrows what the model will see, spools all of it to a temp file
 * through the operations backend so the full text stays readable.
 */
import type { ToolOperations } from "./operations.ts";
import { tempPath } from "./operations.ts";
import { MAX_BYTES, type Truncation, truncateTail } from "./truncate.ts";

// The in-memory tail is trimmed back to KEEP when it passes LIMIT: comfortably over what
// tail truncation keeps, without re-slicing on every chunk.
const TAIL_KEEP = 2 * MAX_BYTES;
const TAIL_LIMIT = 4 * MAX_BYTES;

/** The collected output, truncated for the model, plus where the full text went. */
export interface CollectedOutput {
  truncation: Truncation;
  fullOutputPath?: string;
}

/** Accumulates chunks in arrival order. */
export class OutputCollector {
  readonly #ops: ToolOperations;
  // One decoder per stream: a character split across two stdout chunks must not be broken
  // by a stderr chunk arriving in between.
  readonly #decoders = { stdout: new TextDecoder(), stderr: new TextDecoder() };
  #tail = "";
  #bytes = 0;
  #newlines = 0;
  #last = "";
  #spoolPath: string | undefined;
  #spooling: Promise<void> = Promise.resolve();
  #spoolError: unknown;
  // Text waiting for the spool; written in one append per round so a fast producer costs
  // one file operation per write round, not one per chunk.
  #unspooled: string[] = [];
  #flushing = false;

  constructor(ops: ToolOperations) {
    this.#ops = ops;
  }

  /** Adds one chunk of raw output from `stream` (stdout by default). */
  push(chunk: Uint8Array, stream: "stdout" | "stderr" = "stdout"): void {
    this.#bytes += chunk.length;
    const piece = this.#decoders[stream].decode(chunk, { stream: true });
    this.#count(piece);
    if (this.#spoolPath === undefined && this.#bytes > MAX_BYTES) this.#startSpool(this.#tail + piece);
    else if (this.#spoolPath !== undefined) this.#append(piece);
    this.#tail += piece;
    if (this.#spoolPath !== undefined && this.#tail.length > TAIL_LIMIT)
      this.#tail = this.#tail.slice(-TAIL_KEEP);
  }

  /** The output so far as the model would see it. */
  snapshot(): string {
    return truncateTail(this.#tail).content;
  }

  /** Finishes decoding, waits for the spool, and truncates. */
  async finish(): Promise<CollectedOutput> {
    const rest = this.#decoders.stdout.decode() + this.#decoders.stderr.decode();
    if (rest) {
      this.#count(rest);
      this.#tail += rest;
      if (this.#spoolPath !== undefined) this.#append(rest);
    }
    const truncation = truncateTail(this.#tail);
    // Cut by lines alone (short lines) means nothing was spooled yet, but the tail is whole.
    if (truncation.truncated && this.#spoolPath === undefined) this.#startSpool(this.#tail);
    await this.#spooling;
    const totalLines = this.#newlines + (this.#last === "" || this.#last === "\n" ? 0 : 1);
    const counted = { ...truncation, totalBytes: this.#bytes, totalLines };
    if (this.#spoolError !== undefined) {
      process.stderr.write(`[agent] bash output spool failed: ${String(this.#spoolError)}\n`);
      return { truncation: counted };
    }
    return {
      truncation: counted,
      ...(this.#spoolPath !== undefined ? { fullOutputPath: this.#spoolPath } : {}),
    };
  }

  #count(piece: string): void {
    if (piece === "") return;
    for (let at = piece.indexOf("\n"); at !== -1; at = piece.indexOf("\n", at + 1)) this.#newlines++;
    this.#last = piece.at(-1)!;
  }

  #startSpool(initial: string): void {
    this.#spoolPath = tempPath(this.#ops, "knightcode-bash", ".log");
    const path = this.#spoolPath;
    this.#spooling = this.#spooling
      .then(() => this.#ops.writeFile(path, initial))
      .catch((e) => this.#fail(e));
  }

  #append(piece: string): void {
    if (this.#spoolError !== undefined) return;
    this.#unspooled.push(piece);
    if (this.#flushing) return;
    this.#flushing = true;
    const path = this.#spoolPath!;
    this.#spooling = this.#spooling
      .then(async () => {
        while (this.#unspooled.length > 0) {
          const batch = this.#unspooled.join("");
          this.#unspooled = [];
          await this.#ops.appendFile(path, batch);
        }
        // Cleared right after the last emptiness check, so a later piece starts a new round.
        this.#flushing = false;
      })
      .catch((e) => {
        this.#unspooled = [];
        this.#flushing = false;
        this.#fail(e);
      });
  }

  #fail(error: unknown): void {
    this.#spoolError ??= error;
  }
}
