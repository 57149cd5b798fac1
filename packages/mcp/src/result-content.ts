/**
 * An MCP `tools/call` result as an agent tool result. Text, images, embedded resources
 * and resource links become text and image content; `isError` becomes a failed call.
 * Text is cut like the built-ins' output (2,000 lines / 50 KiB, keeping the start);
 * the full text goes to a temp file the model can `read`.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentToolResult } from "@knightcode/agent";
import { MAX_BYTES, MAX_LINES, truncateHead } from "@knightcode/agent/truncate";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";

/** Image types providers accept as tool-result images; others are described as text. */
const PROVIDER_IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** What the thread manager's live items and the transcript keep besides the content. */
export interface McpToolDetails {
  server: string;
  tool: string;
  /** Set when the text was cut: where the whole text is. */
  fullOutputPath?: string;
}

type Part = AgentToolResult["content"][number];

function blockParts(block: ContentBlock): Part[] {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: block.text }];
    case "image":
      return PROVIDER_IMAGE_TYPES.has(block.mimeType)
        ? [{ type: "image", data: block.data, mimeType: block.mimeType }]
        : [{ type: "text", text: `[image of type ${block.mimeType} omitted: the model cannot read it]` }];
    case "audio":
      return [{ type: "text", text: `[audio of type ${block.mimeType} omitted: the model cannot hear it]` }];
    case "resource": {
      const resource = block.resource;
      if ("text" in resource) return [{ type: "text", text: `[resource ${resource.uri}]\n${resource.text}` }];
      const type = resource.mimeType ?? "unknown type";
      return [{ type: "text", text: `[binary resource ${resource.uri} (${type}) omitted]` }];
    }
    case "resource_link":
      return [{ type: "text", text: `[resource link ${block.uri}${block.name ? ` (${block.name})` : ""}]` }];
    default:
      return [{ type: "text", text: `[content of unknown type omitted]` }];
  }
}

/** Joins adjacent text parts so truncation sees the text as the model will. */
function mergeText(parts: Part[]): Part[] {
  const merged: Part[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if (part.type === "text" && last?.type === "text") last.text = `${last.text}\n${part.text}`;
    else merged.push(part.type === "text" ? { ...part } : part);
  }
  return merged;
}

async function saveFullText(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "knightcode-mcp-"));
  const path = join(dir, "output.txt");
  await writeFile(path, text, { mode: 0o600 });
  return path;
}

/** Cuts the text of a result to the built-ins' limits, saving the whole text when cut. */
async function boundText(parts: Part[]): Promise<{ parts: Part[]; fullOutputPath?: string }> {
  const text = parts
    .filter((p): p is Extract<Part, { type: "text" }> => p.type === "text")
    .map((p) => p.text)
    .join("\n");
  const cut = truncateHead(text);
  if (!cut.truncated) return { parts };
  const fullOutputPath = await saveFullText(text);
  const note =
    `\n\n[Output truncated: showing ${cut.outputLines} of ${cut.totalLines} lines ` +
    `(limit ${MAX_LINES} lines or ${MAX_BYTES / 1024} KiB). Full output: ${fullOutputPath}]`;
  const images = parts.filter((p) => p.type === "image");
  return { parts: [{ type: "text", text: cut.content + note }, ...images], fullOutputPath };
}

/** The agent result of one call. */
export async function toolResultOf(
  result: CallToolResult,
  server: string,
  tool: string,
): Promise<AgentToolResult<McpToolDetails>> {
  let parts = mergeText((result.content ?? []).flatMap(blockParts));
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts = [{ type: "text", text: JSON.stringify(result.structuredContent, null, 2) }];
  if (parts.length === 0) parts = [{ type: "text", text: "(no output)" }];
  const bounded = await boundText(parts);
  const details: McpToolDetails = { server, tool };
  if (bounded.fullOutputPath !== undefined) details.fullOutputPath = bounded.fullOutputPath;
  return { content: bounded.parts, details, ...(result.isError === true ? { isError: true } : {}) };
}
