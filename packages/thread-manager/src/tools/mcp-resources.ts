/**
 * MCP resources of a loaded thread: reading one by server name and URI
 * (`mcpServer/resource/read`), and turning the resources a `turn/start` names into
 * context parts of its user message, each headed by its server, URI and MIME type.
 */
import type { ImageContent, TextContent } from "@knightcode/ai";
import {
  AppServerError,
  type McpResourceContents,
  type McpResourceRef,
  type McpServerResourceReadResult,
} from "@knightcode/app-server-protocol";
import type { McpToolSource } from "./mcp-source.ts";

/** Image types providers accept inline; other binary contents become a note. */
const INLINE_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/**
 * Reads one resource of one of the thread's servers. An unknown server, one that is not
 * ready, and a read the server refuses or fails are `invalidParams`, as a prompt that
 * cannot be rendered is: nothing the client named could be read.
 */
export async function readMcpResource(
  mcp: McpToolSource | undefined,
  ref: McpResourceRef,
): Promise<McpServerResourceReadResult> {
  const connection = mcp?.servers.connectionOf(ref.server);
  if (connection === undefined) {
    throw new AppServerError("invalidParams", `The thread has no MCP server named "${ref.server}"`);
  }
  if (connection.state !== "ready") {
    throw new AppServerError(
      "invalidParams",
      `MCP server "${ref.server}" is ${connection.state}${connection.error ? `: ${connection.error}` : ""}`,
    );
  }
  try {
    const result = await connection.readResource(ref.uri);
    return { contents: result.contents.map(wireContents) };
  } catch (error) {
    throw new AppServerError(
      "invalidParams",
      `MCP server "${ref.server}" could not read ${ref.uri}: ${(error as Error)?.message ?? error}`,
    );
  }
}

function wireContents(contents: { uri: string; mimeType?: string; text?: unknown; blob?: unknown }) {
  const mime = contents.mimeType !== undefined ? { mimeType: contents.mimeType } : {};
  if (typeof contents.text === "string") return { uri: contents.uri, ...mime, text: contents.text };
  return { uri: contents.uri, ...mime, blob: typeof contents.blob === "string" ? contents.blob : "" };
}

/**
 * The context parts for the resources a turn names, in order: text contents as a text
 * part headed by server, URI and MIME type (the model sees where it came from and what
 * it is); an image a provider accepts as an image part after its heading; other binary
 * contents as a heading with a note. Any unreadable resource fails the whole start.
 */
export async function resourceContext(
  mcp: McpToolSource | undefined,
  refs: readonly McpResourceRef[] | undefined,
): Promise<(TextContent | ImageContent)[]> {
  if (refs === undefined || refs.length === 0) return [];
  const reads = await Promise.all(refs.map((ref) => readMcpResource(mcp, ref)));
  return reads.flatMap((read, n) =>
    read.contents.flatMap((contents) => contextParts(refs[n]!.server, contents)),
  );
}

function contextParts(server: string, contents: McpResourceContents): (TextContent | ImageContent)[] {
  const mimeType = contents.mimeType ?? ("text" in contents ? "text/plain" : "application/octet-stream");
  const heading = `MCP resource from server "${server}": ${contents.uri} (${mimeType})`;
  if ("text" in contents) {
    return [{ type: "text", text: `<mcp-resource>\n${heading}\n\n${contents.text}\n</mcp-resource>` }];
  }
  if (INLINE_IMAGE_TYPES.has(mimeType)) {
    return [
      { type: "text", text: `<mcp-resource>\n${heading}\n</mcp-resource>` },
      { type: "image", mimeType, data: contents.blob },
    ];
  }
  const bytes = Math.floor((contents.blob.length * 3) / 4);
  return [
    {
      type: "text",
      text: `<mcp-resource>\n${heading}\n\n[binary content, about ${bytes} bytes, not shown]\n</mcp-resource>`,
    },
  ];
}
