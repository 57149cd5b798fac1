/**
 * A compaction summary written by the extension instead of the model: the user's
 * requests so far, one per line. It costs no model call; the entry is stored with
 * `fromHook: true`. `/compact cancel` shows how an extension refuses a compaction.
 */
import type { ExtensionAPI } from "@knightcode/extensions";

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (part?.type === "text" ? String(part.text) : "")).join(" ");
}

export default function customCompaction(knightcode: ExtensionAPI) {
  knightcode.on("session_before_compact", (event) => {
    if (event.customInstructions === "cancel") return { cancel: true };
    const asks = event.branchEntries.flatMap((entry) =>
      entry.type === "message" && entry.message.role === "user" ? [textOf(entry.message.content)] : [],
    );
    return {
      compaction: {
        summary: `## Requests so far\n${asks.map((ask) => `- ${ask}`).join("\n")}`,
        firstKeptEntryId: event.preparation.firstKeptEntryId ?? undefined,
        details: { requests: asks.length },
      },
    };
  });
}
