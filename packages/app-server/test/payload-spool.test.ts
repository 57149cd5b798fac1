import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createPayloadSpool,
  PAYLOAD_CHUNK_BYTES,
  PayloadReadError,
  type PayloadSpool,
} from "../src/payload-spool.ts";

const spools: PayloadSpool[] = [];
afterEach(() => {
  for (const s of spools.splice(0)) s.dispose();
});

function readAll(spool: PayloadSpool, id: string): { bytes: Buffer; chunks: number } {
  const parts: Buffer[] = [];
  let offset = 0;
  let chunks = 0;
  for (;;) {
    const chunk = spool.read(id, offset);
    const bytes = Buffer.from(chunk.data, "base64");
    expect(bytes.byteLength).toBeLessThanOrEqual(PAYLOAD_CHUNK_BYTES);
    parts.push(bytes);
    chunks++;
    if (chunk.eof) {
      expect(chunk.nextOffset).toBeUndefined();
      break;
    }
    expect(chunk.nextOffset).toBe(offset + bytes.byteLength);
    offset = chunk.nextOffset!;
  }
  return { bytes: Buffer.concat(parts), chunks };
}

describe("payload spool", () => {
  test("a multi-byte value reads back byte-exact in 48 KiB chunks with byte offsets", () => {
    const spool = createPayloadSpool();
    spools.push(spool);
    const value = "héllo wörld 🎉 ".repeat(20_000);
    const ref = spool.put(value);
    expect(ref.type).toBe("payloadRef");
    expect(ref.byteLength).toBe(Buffer.byteLength(value));
    const { bytes, chunks } = readAll(spool, ref.id);
    expect(bytes.toString("utf8")).toBe(value);
    expect(chunks).toBe(Math.ceil(ref.byteLength / PAYLOAD_CHUNK_BYTES));
    expect(spool.stats()).toEqual({ files: 1, bytes: ref.byteLength });
  });

  test("references are immutable: the same value every read, in a read-only file; a new put is a new ID", () => {
    const spool = createPayloadSpool();
    spools.push(spool);
    const first = spool.put("value one");
    const second = spool.put("value one");
    expect(second.id).not.toBe(first.id);
    expect(statSync(join(spool.dir, first.id)).mode & 0o777).toBe(0o400);
    expect(statSync(spool.dir).mode & 0o777).toBe(0o700);
    expect(readAll(spool, first.id).bytes.toString()).toBe("value one");
    expect(readAll(spool, first.id).bytes.toString()).toBe("value one");
  });

  test("putPieces stores the pieces' concatenation as UTF-8, big and small pieces alike", () => {
    const spool = createPayloadSpool();
    spools.push(spool);
    const pieces = ["{", '"a":', "é".repeat(100_000), "x".repeat(300_000), ",", "😀", "}"];
    const ref = spool.putPieces(pieces);
    const expected = Buffer.from(pieces.join(""), "utf8");
    expect(ref.byteLength).toBe(expected.byteLength);
    expect(readAll(spool, ref.id).bytes.equals(expected)).toBe(true);
    expect(statSync(join(spool.dir, ref.id)).mode & 0o777).toBe(0o400);
    expect(spool.stats()).toEqual({ files: 1, bytes: expected.byteLength });
  });

  test("putPieces leaves no file behind when producing the pieces fails", () => {
    const spool = createPayloadSpool();
    spools.push(spool);
    function* failing(): Generator<string> {
      yield "x".repeat(100_000);
      throw new Error("bad value");
    }
    expect(() => spool.putPieces(failing())).toThrow("bad value");
    expect(readdirSync(spool.dir)).toEqual([]);
    expect(spool.stats()).toEqual({ files: 0, bytes: 0 });
  });

  test("an empty value is one eof chunk", () => {
    const spool = createPayloadSpool();
    spools.push(spool);
    const ref = spool.put("");
    expect(spool.read(ref.id, 0)).toEqual({ data: "", eof: true });
  });

  test("references expire 30 minutes after the last access, not after creation", () => {
    let t = 1_000_000;
    const spool = createPayloadSpool({ now: () => t });
    spools.push(spool);
    const ref = spool.put("x".repeat(100));
    t += 29 * 60_000;
    expect(spool.read(ref.id, 0).eof).toBe(true);
    t += 29 * 60_000;
    expect(spool.read(ref.id, 0).eof).toBe(true);
    t += 30 * 60_000;
    expect(() => spool.read(ref.id, 0)).toThrow(PayloadReadError);
    expect(spool.stats().files).toBe(0);
    expect(readdirSync(spool.dir)).toEqual([]);
  });

  test("sweeping removes expired files from disk", () => {
    let t = 0;
    const spool = createPayloadSpool({ now: () => t });
    spools.push(spool);
    spool.put("a");
    spool.put("b");
    t += 31 * 60_000;
    spool.put("c");
    expect(readdirSync(spool.dir).length).toBe(1);
    expect(spool.stats().files).toBe(1);
  });

  test("IDs never reach paths outside the spool", () => {
    const outside = mkdtempSync(join(tmpdir(), "spool-outside-"));
    try {
      writeFileSync(join(outside, "secret"), "secret");
      const spool = createPayloadSpool();
      spools.push(spool);
      for (const id of [
        "../secret",
        `${outside}/secret`,
        "..",
        "",
        "a".repeat(32).replace(/a$/, "/"),
        "0".repeat(31) + "G",
        join("..", outside.split("/").pop()!, "secret"),
      ]) {
        let error: unknown;
        try {
          spool.read(id, 0);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(PayloadReadError);
        expect((error as PayloadReadError).reason).toBe("notFound");
      }
      // a well-formed but unknown ID is refused too, even when such a file exists
      const fake = "0".repeat(32);
      writeFileSync(join(spool.dir, fake), "planted");
      expect(() => spool.read(fake, 0)).toThrow(PayloadReadError);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test("offsets outside the value are refused", () => {
    const spool = createPayloadSpool();
    spools.push(spool);
    const ref = spool.put("abc");
    for (const offset of [-1, 4, 1.5, Number.MAX_SAFE_INTEGER + 2]) {
      let error: unknown;
      try {
        spool.read(ref.id, offset);
      } catch (e) {
        error = e;
      }
      expect((error as PayloadReadError).reason).toBe("badOffset");
    }
    expect(Buffer.from(spool.read(ref.id, 3).data, "base64").byteLength).toBe(0);
  });

  test("dispose removes the spool directory", () => {
    const spool = createPayloadSpool();
    spool.put("x");
    spool.dispose();
    expect(existsSync(spool.dir)).toBe(false);
  });
});
