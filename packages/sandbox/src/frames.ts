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
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Encodes one frame. */
export function encodeFrame(header: Record<string, unknown>, payload: Uint8Array = EMPTY): Uint8Array {
  const head = encoder.encode(JSON.stringify(header));
  const out = new Uint8Array(8 + head.length + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, head.length);
  view.setUint32(4, payload.length);
  out.set(head, 8);
  out.set(payload, 8 + head.length);
  return out;
}

/** Splits a byte stream into frames as chunks arrive. */
export class FrameReader {
  private buffer: Uint8Array = new Uint8Array(0);

  /** Adds a chunk; returns the frames it completed. */
  push(chunk: Uint8Array): Frame[] {
    this.buffer = this.buffer.length === 0 ? chunk : concat(this.buffer, chunk);
    const frames: Frame[] = [];
    for (;;) {
      if (this.buffer.length < 8) break;
      const view = new DataView(this.buffer.buffer, this.buffer.byteOffset, 8);
      const headLength = view.getUint32(0);
      const payloadLength = view.getUint32(4);
      const total = 8 + headLength + payloadLength;
      if (this.buffer.length < total) break;
      const header = JSON.parse(decoder.decode(this.buffer.subarray(8, 8 + headLength))) as Record<
        string,
        unknown
      >;
      // A copy, so the payload does not pin the whole read buffer.
      const payload = this.buffer.slice(8 + headLength, total);
      frames.push({ header, payload });
      this.buffer = this.buffer.subarray(total);
    }
    return frames;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
