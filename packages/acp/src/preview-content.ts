/**
 * An approval's preview as the content of ACP's `session/request_permission`, so an editor
 * shows what the terminal card shows. A new file is one diff block from nothing to its
 * content; a change is one diff block per hunk of the server's unified diff (the context
 * lines on both sides, so the editor can place it); a call that would fail says why.
 */
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { ApprovalPreview } from "@knightcode/app-server-protocol";

/** The content blocks of a preview; `diff` is the unified diff, already read when it came by reference. */
export async function previewContent(
  preview: ApprovalPreview,
  input: unknown,
  diff: string | undefined,
): Promise<ToolCallContent[]> {
  switch (preview.type) {
    case "fileChange": {
      if (preview.error !== undefined) return [textBlock(`This call would fail: ${preview.error}`)];
      const content = (input as { content?: unknown } | undefined)?.content;
      if (preview.kind === "add" && typeof content === "string") {
        return [{ type: "diff", path: preview.path, oldText: null, newText: content }];
      }
      return diff === undefined ? [] : await hunkDiffs(preview.path, diff);
    }
    case "command":
      return [textBlock(`Runs in ${preview.cwd}`)];
    case "tool":
      return [
        textBlock(
          preview.source === "mcp"
            ? `Tool ${preview.tool} of the MCP server ${preview.server}`
            : `Tool ${preview.tool} of the extension ${preview.server}`,
        ),
      ];
    case "sampling":
      return [
        textBlock(
          [
            `The MCP server ${preview.server} asks the model (up to ${preview.maxTokens} tokens):`,
            ...(preview.systemPrompt === undefined ? [] : [`system: ${preview.systemPrompt}`]),
            ...preview.messages.map((message) => `${message.role}: ${message.text}`),
          ].join("\n\n"),
        ),
      ];
  }
}

async function hunkDiffs(path: string, diff: string): Promise<ToolCallContent[]> {
  const { parsePatch } = await import("diff");
  const hunks = parsePatch(diff)[0]?.hunks ?? [];
  return hunks.map((hunk) => {
    const oldLines: string[] = [];
    const newLines: string[] = [];
    for (const line of hunk.lines) {
      const body = line.slice(1);
      if (line.startsWith(" ")) {
        oldLines.push(body);
        newLines.push(body);
      } else if (line.startsWith("-")) oldLines.push(body);
      else if (line.startsWith("+")) newLines.push(body);
    }
    return { type: "diff", path, oldText: oldLines.join("\n"), newText: newLines.join("\n") };
  });
}

function textBlock(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}
