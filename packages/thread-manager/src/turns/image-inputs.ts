/**
 * Image inputs of `turn/start`, `turn/steer` and `turn/queue/add`: inline base64 or an
 * absolute path on the server's filesystem. Both are checked by content signature, never
 * by file name, because a name says nothing about what a provider will be sent.
 */
import { open, stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { detectImageMime } from "@knightcode/agent/image";
import type { ImageContent } from "@knightcode/ai";
import { AppServerError } from "@knightcode/app-server-protocol";

/** Largest path image accepted, in bytes. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** An image as a client sends it. */
export type ImageInputParam = { mimeType: string; data: string } | { path: string };

/** The image type a file signature proves (the agent's detection), or undefined for anything else. */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  return detectImageMime(bytes);
}

function invalid(message: string): AppServerError {
  return new AppServerError("invalidParams", message);
}

async function loadPathImage(path: string): Promise<ImageContent> {
  if (!isAbsolute(path)) throw invalid(`Image path must be absolute: ${path}`);
  const info = await stat(path).catch(() => undefined);
  if (!info) throw invalid(`Image not found: ${path}`);
  if (!info.isFile()) throw invalid(`Image is not a regular file: ${path}`);
  if (info.size > MAX_IMAGE_BYTES) throw invalid(`Image is larger than 20 MiB: ${path}`);
  // Read through one handle so a file swapped after the stat cannot exceed the bound.
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(Math.min(info.size, MAX_IMAGE_BYTES) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_IMAGE_BYTES) throw invalid(`Image is larger than 20 MiB: ${path}`);
    const bytes = buffer.subarray(0, bytesRead);
    const mimeType = sniffImageType(bytes);
    if (!mimeType) throw invalid(`Not a PNG, JPEG, GIF or WebP image: ${path}`);
    return { type: "image", mimeType, data: bytes.toString("base64") };
  } finally {
    await handle.close();
  }
}

function loadInlineImage(image: { mimeType: string; data: string }): ImageContent {
  const bytes = Buffer.from(image.data, "base64");
  const mimeType = sniffImageType(bytes);
  if (!mimeType) throw invalid("Inline image is not a PNG, JPEG, GIF or WebP image");
  if (bytes.length > MAX_IMAGE_BYTES) throw invalid("Inline image is larger than 20 MiB");
  return { type: "image", mimeType, data: image.data };
}

/** Resolves every image input or rejects with `invalidParams` naming the first bad one. */
export async function resolveImages(images: readonly ImageInputParam[] | undefined): Promise<ImageContent[]> {
  const out: ImageContent[] = [];
  for (const image of images ?? []) {
    out.push("path" in image ? await loadPathImage(image.path) : loadInlineImage(image));
  }
  return out;
}
