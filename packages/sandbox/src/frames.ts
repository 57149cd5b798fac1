/**
 * The pipe protocol between the server and its sandbox helper: each frame is an 8-byte
 * prefix (header length, payload length; big-endian u32), a JSON header and raw payload
 * bytes, so file contents and process output cross without base64.
 */

/** One frame: a JSON header and optional bytes. */
export interface Frame {
  header: Record<string, unknown>;
  payload: Uint8Array;
}

const EMPTY = new Uint8Array(0);
/** Bounds a reader accepts; a larger length means the stream is garbled. */
export const MAX_HEADER_BYTES = 1024 * 1024;
export const MAX_PAYLOAD_BYTES = 1024 * 1024 * 1024;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The prefix and header of a frame; the payload follows as it is (no copy of large data). */
export function encodeFrameHead(header: Record<string, unknown>, payloadLength: number): Uint8Array {
  const head = encoder.encode(JSON.stringify(header));
  const out = new Uint8Array(8 + head.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, head.length);
  view.setUint32(4, payloadLength);
  out.set(head, 8);
  return out;
}

/** Encodes one whole frame. */
export function encodeFrame(header: Record<string, unknown>, payload: Uint8Array = EMPTY): Uint8Array {
  const head = encodeFrameHead(header, payload.length);
  if (payload.length === 0) return head;
  const out = new Uint8Array(head.length + payload.length);
  out.set(head, 0);
  out.set(payload, head.length);
  return out;
}

/**
 * Splits a byte stream into frames as chunks arrive. Chunks are kept as a list and joined
 * once per frame, so a large payload arriving in many pipe-sized pieces costs one copy.
 */
export class FrameReader {
  private chunks: Uint8Array[] = [];
  private length = 0;

  /** Adds a chunk; returns the frames it completed. Throws when the stream is not frames. */
  push(chunk: Uint8Array): Frame[] {
    this.chunks.push(chunk);
    this.length += chunk.length;
    const frames: Frame[] = [];
    for (;;) {
      if (this.length < 8) break;
      const prefix = this.peek(8);
      const view = new DataView(prefix.buffer, prefix.byteOffset, 8);
      const headLength = view.getUint32(0);
      const payloadLength = view.getUint32(4);
      if (headLength > MAX_HEADER_BYTES || payloadLength > MAX_PAYLOAD_BYTES)
        throw new Error(`frame lengths out of bounds (${headLength}, ${payloadLength})`);
      const total = 8 + headLength + payloadLength;
      if (this.length < total) break;
      const bytes = this.take(total);
      const header = JSON.parse(decoder.decode(bytes.subarray(8, 8 + headLength))) as Record<string, unknown>;
      frames.push({ header, payload: bytes.subarray(8 + headLength) });
    }
    return frames;
  }

  /** The first `n` buffered bytes (joined only when they span chunks). */
  private peek(n: number): Uint8Array {
    const first = this.chunks[0]!;
    if (first.length >= n) return first.subarray(0, n);
    return this.join(n, false);
  }

  /** Removes and returns the first `n` buffered bytes. */
  private take(n: number): Uint8Array {
    const first = this.chunks[0]!;
    if (first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      this.length -= n;
      return out;
    }
    return this.join(n, true);
  }

  private join(n: number, consume: boolean): Uint8Array {
    const out = new Uint8Array(n);
    let filled = 0;
    let index = 0;
    while (filled < n) {
      const chunk = this.chunks[index]!;
      const part = Math.min(chunk.length, n - filled);
      out.set(chunk.subarray(0, part), filled);
      filled += part;
      if (consume) {
        if (part === chunk.length) this.chunks.shift();
        else this.chunks[0] = chunk.subarray(part);
      } else index++;
    }
    if (consume) this.length -= n;
    return out;
  }
}
