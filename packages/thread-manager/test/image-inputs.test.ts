import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppServerError } from "@knightcode/app-server-protocol";
import { MAX_IMAGE_BYTES, resolveImages } from "../src/index.ts";

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error instanceof AppServerError ? error.code : "not an AppServerError";
  }
}

describe("image inputs", () => {
  test("path images are read by content; GIF and WebP signatures pass whatever the name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tm-images-"));
    try {
      writeFileSync(join(dir, "a.txt"), Buffer.concat([Buffer.from("GIF89a"), Buffer.alloc(10)]));
      writeFileSync(join(dir, "b"), Buffer.concat([Buffer.from("RIFF0000WEBP"), Buffer.alloc(4)]));
      const images = await resolveImages([{ path: join(dir, "a.txt") }, { path: join(dir, "b") }]);
      expect(images.map((i) => i.mimeType)).toEqual(["image/gif", "image/webp"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an image over 20 MiB is invalidParams; exactly 20 MiB passes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tm-images-"));
    try {
      const path = join(dir, "big.png");
      writeFileSync(path, PNG_HEAD);
      truncateSync(path, MAX_IMAGE_BYTES);
      expect((await resolveImages([{ path }]))[0]?.mimeType).toBe("image/png");
      truncateSync(path, MAX_IMAGE_BYTES + 1);
      expect(await code(resolveImages([{ path }]))).toBe("invalidParams");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("relative, missing, directory and non-image inputs are invalidParams", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tm-images-"));
    try {
      writeFileSync(join(dir, "fake.png"), "hello");
      expect(await code(resolveImages([{ path: "rel.png" }]))).toBe("invalidParams");
      expect(await code(resolveImages([{ path: join(dir, "none.png") }]))).toBe("invalidParams");
      expect(await code(resolveImages([{ path: dir }]))).toBe("invalidParams");
      expect(await code(resolveImages([{ path: join(dir, "fake.png") }]))).toBe("invalidParams");
      expect(await code(resolveImages([{ mimeType: "image/png", data: "aGVsbG8=" }]))).toBe("invalidParams");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
