import { describe, expect, test } from "bun:test";
import { promptToTurnInput, UnsupportedContentError, uriToPath } from "../src/prompt-content.ts";

describe("prompt content", () => {
  test("text blocks join with blank lines; a resource link names its path", () => {
    expect(
      promptToTurnInput([
        { type: "text", text: "Fix" },
        { type: "resource_link", uri: "file:///a%20b/c.ts", name: "c.ts" },
      ]),
    ).toEqual({ text: "Fix\n\n@/a b/c.ts", images: [] });
  });

  test("an embedded text resource is fenced with a fence longer than any backtick run inside", () => {
    const { text } = promptToTurnInput([
      { type: "resource", resource: { uri: "file:///x.md", text: "a ``` b" } },
    ]);
    expect(text).toBe("```` /x.md\na ``` b\n````");
  });

  test("image blocks and image blob resources become inline images", () => {
    const { images } = promptToTurnInput([
      { type: "image", mimeType: "image/png", data: "AAA=" },
      { type: "resource", resource: { uri: "file:///p.jpg", blob: "BBB=", mimeType: "image/jpeg" } },
    ]);
    expect(images).toEqual([
      { mimeType: "image/png", data: "AAA=" },
      { mimeType: "image/jpeg", data: "BBB=" },
    ]);
  });

  test("audio, non-image blobs and unsupported image types are refused", () => {
    expect(() => promptToTurnInput([{ type: "audio", mimeType: "audio/wav", data: "A" }])).toThrow(
      UnsupportedContentError,
    );
    expect(() =>
      promptToTurnInput([
        { type: "resource", resource: { uri: "file:///z.bin", blob: "A", mimeType: "application/zip" } },
      ]),
    ).toThrow(UnsupportedContentError);
    expect(() => promptToTurnInput([{ type: "image", mimeType: "image/bmp", data: "A" }])).toThrow(
      /not a PNG, JPEG, GIF or WebP/,
    );
  });

  test("non-file URIs stay as they are", () => {
    expect(uriToPath("https://example.com/x")).toBe("https://example.com/x");
  });
});
