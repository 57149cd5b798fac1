/**
 * ACP prompt content → the text and images of a `turn/start`. Text blocks are the user's
 * words; a resource link is named in the text (the agent reads it with its own tools);
 * an embedded resource travels whole, fenced and labelled with its URI, since the
 * editor sent it precisely so the agent need not read it; images become inline images.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { InlineImage } from "@knightcode/app-server-protocol";

/** The input of one turn. */
export interface TurnInput {
  text: string;
  images: InlineImage[];
}

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** A prompt block KnightCode cannot take; the prompt is refused as invalid params. */
export class UnsupportedContentError extends Error {
  override readonly name = "UnsupportedContentError";
}

/** A `file://` URI as a path, anything else as it is. */
export function uriToPath(uri: string): string {
  if (!uri.startsWith("file://")) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

function inlineImage(mimeType: string, data: string, what: string): InlineImage {
  if (!IMAGE_TYPES.has(mimeType)) {
    throw new UnsupportedContentError(`${what}: ${mimeType} is not a PNG, JPEG, GIF or WebP image`);
  }
  return { mimeType: mimeType as InlineImage["mimeType"], data };
}

function fenced(uri: string, text: string): string {
  const longestRun = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longestRun + 1);
  return `${fence} ${uriToPath(uri)}\n${text}${text.endsWith("\n") ? "" : "\n"}${fence}`;
}

/** Translates prompt blocks in order; text parts are joined by blank lines. */
export function promptToTurnInput(blocks: readonly ContentBlock[]): TurnInput {
  const parts: string[] = [];
  const images: InlineImage[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(`@${uriToPath(block.uri)}`);
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) {
          parts.push(fenced(resource.uri, resource.text));
        } else if (resource.mimeType && IMAGE_TYPES.has(resource.mimeType)) {
          images.push(inlineImage(resource.mimeType, resource.blob, resource.uri));
        } else {
          throw new UnsupportedContentError(
            `embedded resource ${resource.uri}: only text and image resources are supported`,
          );
        }
        break;
      }
      case "image":
        images.push(inlineImage(block.mimeType, block.data, "image block"));
        break;
      case "audio":
        throw new UnsupportedContentError(
          "audio blocks are not supported (promptCapabilities.audio is false)",
        );
    }
  }
  return { text: parts.join("\n\n"), images };
}
