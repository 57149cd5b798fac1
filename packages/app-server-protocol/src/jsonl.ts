/**
 * JSON-lines framing. Lines end at `\n` only, so U+2028/U+2029 inside strings stay intact;
 * one trailing `\r` is stripped; empty lines are ignored. Lines are assembled as bytes and
 * decoded whole, so multi-byte characters split across chunks survive. A line longer than
 * the cap is never buffered: its bytes are dropped as they arrive and reported once.
 */

/** Default per-line cap: 64 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export type LineEvent = { type: "line"; text: string } | { type: "oversized"; bytes: number };

/** Splits a byte stream into lines, enforcing a byte cap per line. */
export class LineDecoder {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  /** Bytes of the current line seen while discarding it; -1 when not discarding. */
  private discarded = -1;
  private readonly decoder = new TextDecoder("utf-8", { fatal: false });

  constructor(private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES) {}

  /** Feeds a chunk; returns the complete lines and oversize reports it finished. */
  push(chunk: Uint8Array): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) break;
      this.finishLine(events);
      start = newline + 1;
    }
    return events;
  }

  /** Ends the stream: a final unterminated line still counts as a line. */
  end(): LineEvent[] {
    const events: LineEvent[] = [];
    if (this.buffered > 0 || this.discarded >= 0) this.finishLine(events);
    return events;
  }

  private take(part: Uint8Array): void {
    if (part.length === 0) return;
    if (this.discarded >= 0) {
      this.discarded += part.length;
      return;
    }
    if (this.buffered + part.length > this.maxLineBytes) {
      this.discarded = this.buffered + part.length;
      this.chunks = [];
      this.buffered = 0;
      return;
    }
    // Copy: the caller may reuse its buffer after push returns.
    this.chunks.push(part.slice());
    this.buffered += part.length;
  }

  private finishLine(events: LineEvent[]): void {
    if (this.discarded >= 0) {
      events.push({ type: "oversized", bytes: this.discarded });
      this.discarded = -1;
      return;
    }
    let bytes: Uint8Array;
    if (this.chunks.length === 1) bytes = this.chunks[0]!;
    else {
      bytes = new Uint8Array(this.buffered);
      let offset = 0;
      for (const part of this.chunks) {
        bytes.set(part, offset);
        offset += part.length;
      }
    }
    this.chunks = [];
    this.buffered = 0;
    let length = bytes.length;
    if (length > 0 && bytes[length - 1] === CARRIAGE_RETURN) length--;
    if (length === 0) return;
    events.push({ type: "line", text: this.decoder.decode(bytes.subarray(0, length)) });
  }
}

/** Serializes one message as a JSON line. JSON.stringify escapes `\n` inside strings, so one message is one line. */
export function encodeLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}
