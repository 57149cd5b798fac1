import { describe, expect, test } from "bun:test";
import { detectImageMime } from "../../src/index.ts";

const bytes = (...values: (number | string)[]) =>
  Uint8Array.from(values.flatMap((v) => (typeof v === "string" ? [...v].map((c) => c.charCodeAt(0)) : [v])));

describe("detectImageMime", () => {
  test("recognizes PNG, JPEG, GIF and WebP signatures", () => {
    expect(detectImageMime(bytes(0x89, "PNG", 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe("image/png");
    expect(detectImageMime(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe("image/jpeg");
    expect(detectImageMime(bytes("GIF89a", 1))).toBe("image/gif");
    expect(detectImageMime(bytes("GIF87a"))).toBe("image/gif");
    expect(detectImageMime(bytes("RIFF", 0, 0, 0, 0, "WEBPVP8 "))).toBe("image/webp");
  });

  test("anything else, including truncated signatures, is not an image", () => {
    expect(detectImageMime(bytes("hello world"))).toBeUndefined();
    expect(detectImageMime(bytes(0x89, "PN"))).toBeUndefined();
    expect(detectImageMime(bytes("RIFF", 0, 0, 0, 0, "WAVE"))).toBeUndefined();
    expect(detectImageMime(new Uint8Array())).toBeUndefined();
  });
});
