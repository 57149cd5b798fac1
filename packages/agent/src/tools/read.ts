/** The `read` tool: numbered lines of a text file, or an image as image content. */
import type { Static } from "typebox";
import type { AgentTool } from "../types.ts";
import { detectImageMime, looksBinary } from "./image.ts";
import { resolveToolPath } from "./paths.ts";
import { type ToolEnv, text } from "./tool-env.ts";
import { formatSize, MAX_BYTES, type Truncation, truncateHead } from "./truncate.ts";
import { withTypeBoxKinds } from "./typebox-kinds.ts";

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Arguments of `read`. */
export const ReadParams = withTypeBoxKinds({
  type: "object",
  required: ["path"],
  properties: {
    path: { type: "string", description: "File to read, relative to the working directory or absolute" },
    offset: { type: "integer", minimum: 1, description: "First line to read (1-based)" },
    limit: { type: "integer", minimum: 1, description: "Maximum number of lines to read" },
  },
} as const);
/** The static type of {@link ReadParams}. */
export type ReadParams = Static<typeof ReadParams>;

/** Details of a `read` result. */
export interface ReadDetails {
  path: string;
  truncation?: Truncation;
}

function numbered(lines: readonly string[], firstLine: number): string {
  const width = String(firstLine + lines.length - 1).length;
  return lines.map((line, i) => `${String(firstLine + i).padStart(width)}\t${line}`).join("\n");
}

/** Quotes a path for the bash recipe in a hint, only when it needs it. */
function shellQuote(value: string): string {
  return /^[\w./~@+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Creates the `read` tool. */
export function createReadTool(env: ToolEnv): AgentTool<typeof ReadParams, ReadDetails> {
  return {
    name: "read",
    label: "Read",
    description:
      "Read a file. Text comes back with line numbers, at most 2000 lines or 50 KB per call; use offset/limit to page through large files. PNG, JPEG, GIF and WebP images come back as images.",
    parameters: ReadParams,
    async execute(args) {
      const path = resolveToolPath(args.path, env.cwd, env.ops.homeDir());
      const info = await env.ops.stat(path);
      if (!info) throw new Error(`File not found: ${args.path}`);
      if (info.isDirectory) throw new Error(`${args.path} is a directory; use ls to list it.`);
      // A FIFO would block the read forever and a device (/dev/zero) never ends.
      if (!info.isFile) throw new Error(`${args.path} is not a regular file.`);
      const bytes = await env.ops.readFile(path);

      const mimeType = detectImageMime(bytes);
      if (mimeType) {
        if (bytes.length > MAX_IMAGE_BYTES) {
          throw new Error(`Image ${args.path} is ${formatSize(bytes.length)}, over the 20 MB limit.`);
        }
        return {
          content: [
            { type: "text", text: `Read image file ${args.path} [${mimeType}]` },
            { type: "image", data: Buffer.from(bytes).toString("base64"), mimeType },
          ],
          details: { path },
        };
      }
      if (looksBinary(bytes)) {
        throw new Error(
          `${args.path} is a binary file (${formatSize(bytes.length)}); it cannot be shown as text.`,
        );
      }

      let content = new TextDecoder().decode(bytes);
      if (content.startsWith("\uFEFF")) content = content.slice(1);
      if (content === "") return { content: text(`(${args.path} is empty)`), details: { path } };
      const lines = content.split(/\r?\n/);
      if (lines.length > 1 && lines.at(-1) === "") lines.pop();
      const total = lines.length;
      const first = args.offset ?? 1;
      if (first > total) {
        throw new Error(`Offset ${first} is beyond the end of ${args.path} (${total} lines).`);
      }
      const selected = lines.slice(first - 1, args.limit !== undefined ? first - 1 + args.limit : undefined);
      const truncation = truncateHead(numbered(selected, first));

      if (truncation.firstLineTooLong) {
        const size = formatSize(new TextEncoder().encode(selected[0] ?? "").length);
        return {
          content: text(
            `[Line ${first} is ${size}, over the ${formatSize(MAX_BYTES)} limit. Read part of it with bash: sed -n '${first}p' ${shellQuote(args.path)} | head -c ${MAX_BYTES}]`,
          ),
          details: { path, truncation },
        };
      }
      let output = truncation.content;
      const shownEnd = first + truncation.outputLines - 1;
      if (truncation.truncated) {
        const limit = truncation.truncatedBy === "bytes" ? ` (${formatSize(MAX_BYTES)} limit)` : "";
        output += `\n\n[Showing lines ${first}-${shownEnd} of ${total}${limit}. Use offset=${shownEnd + 1} to continue.]`;
      } else if (shownEnd < total) {
        output += `\n\n[${total - shownEnd} more lines in the file. Use offset=${shownEnd + 1} to continue.]`;
      }
      return { content: text(output), details: { path, ...(truncation.truncated ? { truncation } : {}) } };
    },
  };
}
