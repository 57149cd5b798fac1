/**
 * What an approval card shows under its question, from the server's preview: a new
 * file's path and content, the diff a change would apply, the error a call would fail
 * with, a shell command whole with the folder it runs in, or an extension or MCP tool's
 * source and arguments. Everything the model wrote is stripped of terminal controls
 * before it is drawn, so a card cannot be made to lie about what it approves.
 */
import type {
  ApprovalPreview,
  ItemToolCallRequestApprovalParams,
  PayloadRef,
} from "@knightcode/app-server-protocol";
import { diffLines } from "./tool-call-block.ts";
import { style } from "./ui/style.ts";
import { plainText } from "./ui/terminal-safe.ts";

const lineCount = (text: string) => text.replace(/\n$/, "").split("\n").length;
const plainLines = (text: string) => text.replace(/\n$/, "").split("\n").map(plainText);

/** The card's detail lines; a diff sent by reference is read with `readPayload` (unreadable: not shown). */
export async function approvalDetail(
  params: ItemToolCallRequestApprovalParams,
  readPayload: (ref: PayloadRef) => Promise<Uint8Array>,
): Promise<string[]> {
  const preview = params.preview;
  if (preview === undefined)
    return params.input === undefined ? [] : argumentLines(params.toolName, params.input);
  let diff: string | undefined;
  if (preview.type === "fileChange") {
    diff =
      preview.diffRef === undefined
        ? preview.diff
        : await readPayload(preview.diffRef).then(
            (bytes) => new TextDecoder().decode(bytes),
            () => undefined,
          );
  }
  return previewLines(preview, params.input, diff);
}

function previewLines(preview: ApprovalPreview, input: unknown, diff: string | undefined): string[] {
  switch (preview.type) {
    case "fileChange": {
      const path = plainText(preview.path);
      if (preview.error !== undefined)
        return [style.bold(`~ ${path}`), style.warning(`This call would fail: ${plainText(preview.error)}`)];
      const content = (input as { content?: unknown } | undefined)?.content;
      if (preview.kind === "add" && typeof content === "string") {
        const count = content === "" ? 0 : lineCount(content);
        return [
          style.bold(`+ new file ${path} (${count} line${count === 1 ? "" : "s"})`),
          ...(content === "" ? [] : plainLines(content)),
        ];
      }
      if (diff === undefined) return [style.bold(`~ ${path}`), style.muted("(no change to show)")];
      return diffLines({ path, kind: preview.kind, diff: plainLines(diff).join("\n") });
    }
    case "command":
      return [
        ...plainLines(preview.command).map((line, i) => `${i === 0 ? "$" : ">"} ${line}`),
        style.muted(`in ${plainText(preview.cwd)}`),
      ];
    case "tool": {
      const from = preview.source === "mcp" ? "MCP server" : "extension";
      return [
        style.bold(`${plainText(preview.tool)} · ${from} ${plainText(preview.server)}`),
        ...argumentJson(input),
      ];
    }
    case "sampling":
      return [
        style.bold(
          `MCP server ${plainText(preview.server)} asks the model (up to ${preview.maxTokens} tokens)`,
        ),
        ...(preview.systemPrompt === undefined
          ? []
          : plainLines(`system: ${preview.systemPrompt}`).map(style.muted)),
        ...preview.messages.flatMap((message) => plainLines(`${message.role}: ${message.text}`)),
      ];
  }
}

/** A tool without a preview: its arguments, unless it is a built-in whose title says it all. */
function argumentLines(toolName: string, input: unknown): string[] {
  const builtin = ["read", "grep", "find", "ls", "ask_user", "submit_plan"].includes(toolName);
  return builtin ? [] : argumentJson(input);
}

function argumentJson(input: unknown): string[] {
  if (input === undefined || (typeof input === "object" && input !== null && Object.keys(input).length === 0))
    return [];
  return plainLines(JSON.stringify(input, null, 2)).map((line) => style.muted(line));
}
