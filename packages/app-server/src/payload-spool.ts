/**
 * Server-owned spool for values too large to travel inline. Each value is written once
 * to its own file under a private temp directory and addressed by an opaque random ID;
 * readers fetch it in bounded chunks by byte offset. IDs are looked up in a map and
 * never joined into a path unchecked, so a client cannot name a file outside the spool.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PAYLOAD_CHUNK_BYTES } from "@knightcode/app-server-protocol";
import { writePieces } from "@knightcode/session-store";
import { logLine } from "./stderr-log.ts";

/** Chunk size before base64 encoding, per the spec's limits. */
export { PAYLOAD_CHUNK_BYTES };
/** References expire after this long without access. */
export const PAYLOAD_TTL_MS = 30 * 60 * 1000;

/** What stands where a large value would be. */
export interface PayloadRefValue {
  type: "payloadRef";
  id: string;
  byteLength: number;
}

/** One `payload/read` answer. */
export interface PayloadChunk {
  data: string;
  nextOffset?: number;
  eof: boolean;
}

/** Why a read was refused; the server maps it to a wire error. */
export class PayloadReadError extends Error {
  /** `notFound` covers unknown, expired and malformed IDs alike, so IDs leak nothing. */
  constructor(
    readonly reason: "notFound" | "badOffset",
    message: string,
  ) {
    super(message);
    this.name = "PayloadReadError";
  }
}

/** Options for {@link createPayloadSpool}. */
export interface PayloadSpoolOptions {
  /** Parent for the spool directory; the OS temp dir by default. */
  parentDir?: string;
  /** Milliseconds clock, injectable so expiry tests need no sleeping. */
  now?: () => number;
  ttlMs?: number;
  chunkBytes?: number;
}

interface SpoolEntry {
  file: string;
  byteLength: number;
  lastAccess: number;
}

const ID_PATTERN = /^[0-9a-f]{32}$/;

/** 16 random bytes as hex, from the global Web Crypto (`node:crypto` costs ~5 ms to load at start). */
function randomId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex");
}
/** A payload spool: immutable files plus a sliding-expiry index of them. */
export interface PayloadSpool {
  readonly dir: string;
  /** Stores a value (a string is stored as UTF-8) and returns its reference. */
  put(value: string | Uint8Array): PayloadRefValue;
  /**
   * Stores the concatenation of `pieces` (UTF-8), writing them as they come, so a large
   * value never has to exist as one string; returns its reference.
   */
  putPieces(pieces: Iterable<string>): PayloadRefValue;
  /** Reads one chunk at a byte offset, refreshing the reference's expiry. */
  read(id: string, offset: number): PayloadChunk;
  /** Drops expired references and their files. */
  sweep(): void;
  stats(): { files: number; bytes: number };
  /** Removes the whole spool directory. */
  dispose(): void;
}

/** Creates a spool in a fresh private directory. */
export function createPayloadSpool(options: PayloadSpoolOptions = {}): PayloadSpool {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? PAYLOAD_TTL_MS;
  const chunkBytes = options.chunkBytes ?? PAYLOAD_CHUNK_BYTES;
  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), "knightcode-spool-"));
  const entries = new Map<string, SpoolEntry>();
  let bytes = 0;
  let lastSweep = now();

  function drop(id: string, entry: SpoolEntry): void {
    entries.delete(id);
    bytes -= entry.byteLength;
    try {
      unlinkSync(entry.file);
    } catch (error) {
      logLine(`knightcode: could not remove spool file ${entry.file}: ${String(error)}\n`);
    }
  }

  function sweep(): void {
    const t = now();
    lastSweep = t;
    for (const [id, entry] of entries) {
      if (t - entry.lastAccess >= ttlMs) drop(id, entry);
    }
  }

  // Sweeping on use (at most once a minute of clock time) keeps expiry free of timers.
  function maybeSweep(): void {
    if (now() - lastSweep >= Math.min(60_000, ttlMs)) sweep();
  }

  function index(id: string, file: string, byteLength: number): PayloadRefValue {
    entries.set(id, { file, byteLength, lastAccess: now() });
    bytes += byteLength;
    return { type: "payloadRef", id, byteLength };
  }

  return {
    dir,
    put(value) {
      maybeSweep();
      // a string is written as it is: a 50 MiB item is not copied into a Buffer first
      const byteLength = typeof value === "string" ? Buffer.byteLength(value, "utf8") : value.byteLength;
      const id = randomId();
      const file = join(dir, id);
      // read-only from the start: a reference names one value for its whole life
      writeFileSync(file, value, { flag: "wx", mode: 0o400 });
      return index(id, file, byteLength);
    },
    putPieces(pieces) {
      maybeSweep();
      const id = randomId();
      const file = join(dir, id);
      const fd = openSync(file, "wx", 0o400);
      let byteLength: number;
      try {
        byteLength = writePieces(fd, pieces);
      } catch (error) {
        closeSync(fd);
        rmSync(file, { force: true });
        throw error;
      }
      closeSync(fd);
      return index(id, file, byteLength);
    },
    read(id, offset) {
      const entry = ID_PATTERN.test(id) ? entries.get(id) : undefined;
      if (entry === undefined || now() - entry.lastAccess >= ttlMs) {
        if (entry !== undefined) drop(id, entry);
        throw new PayloadReadError("notFound", "payload reference is unknown or expired; reread the thread");
      }
      if (!Number.isSafeInteger(offset) || offset < 0 || offset > entry.byteLength) {
        throw new PayloadReadError(
          "badOffset",
          `offset must be a byte offset between 0 and ${entry.byteLength}`,
        );
      }
      entry.lastAccess = now();
      const length = Math.min(chunkBytes, entry.byteLength - offset);
      const buffer = Buffer.allocUnsafe(length);
      const fd = openSync(entry.file, "r");
      try {
        let filled = 0;
        while (filled < length) {
          const n = readSync(fd, buffer, filled, length - filled, offset + filled);
          if (n === 0) break;
          filled += n;
        }
        const end = offset + filled;
        const eof = end >= entry.byteLength;
        const chunk: PayloadChunk = { data: buffer.subarray(0, filled).toString("base64"), eof };
        if (!eof) chunk.nextOffset = end;
        return chunk;
      } finally {
        closeSync(fd);
      }
    },
    sweep,
    stats() {
      maybeSweep();
      return { files: entries.size, bytes };
    },
    dispose() {
      entries.clear();
      bytes = 0;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
