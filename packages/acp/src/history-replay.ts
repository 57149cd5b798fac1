/**
 * A saved thread as the session updates `session/load` replays: the user's messages as
 * `user_message_chunk`, replies as `agent_message_chunk`, reasoning as
 * `agent_thought_chunk`, and each tool call as one `tool_call` in its final state.
 */
import type { ContentBlock, SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { ThreadItem, ToolCallItem, Turn } from "@knightcode/app-server-protocol";
import { finalStatus, outputContent, toolDiffs, toolKind, toolLocations, toolTitle } from "./tool-calls.ts";

/** The `tool_call` of a call, with everything known once it finished. */
export function replayedToolCall(item: ToolCallItem, cwd: string): SessionUpdate {
  // a saved write knows it made a new file only from its file changes
  const created = item.fileChanges?.some((change) => change.kind === "add") === true;
  const diffs: ToolCallContent[] =
    item.toolName === "write" && !created ? [] : toolDiffs(item.toolName, cwd, item.input, null);
  return {
    sessionUpdate: "tool_call",
    toolCallId: item.id,
    title: toolTitle(item.toolName, item.input),
    kind: toolKind(item.toolName),
    status: finalStatus(item.status),
    locations: toolLocations(item.toolName, cwd, item.input),
    rawInput: item.input,
    content: [...diffs, ...outputContent(item)],
    ...(item.output === undefined ? {} : { rawOutput: item.output }),
  };
}

function userContent(item: Extract<ThreadItem, { type: "userMessage" }>): ContentBlock[] {
  const blocks: ContentBlock[] = item.text === "" ? [] : [{ type: "text", text: item.text }];
  for (const image of item.images ?? []) {
    if ("data" in image) blocks.push({ type: "image", mimeType: image.mimeType, data: image.data });
  }
  return blocks;
}

/** The updates of one item, in order. */
export function itemUpdates(item: ThreadItem, cwd: string): SessionUpdate[] {
  switch (item.type) {
    case "userMessage":
      return userContent(item).map((content) => ({ sessionUpdate: "user_message_chunk", content }));
    case "agentMessage":
      return item.text === ""
        ? []
        : [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: item.text } }];
    case "reasoning":
      return item.text === ""
        ? []
        : [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: item.text } }];
    case "toolCall":
      return [replayedToolCall(item, cwd)];
    case "compaction":
      return [
        {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: `Earlier conversation compacted:\n\n${item.summary}` },
        },
      ];
    case "extension":
      return item.text === undefined || item.text === ""
        ? []
        : [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: item.text } }];
  }
}

/** The updates of whole turns (items already resolved), oldest first. */
export function replayUpdates(turns: readonly Turn[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const turn of turns) {
    for (const item of turn.items ?? []) {
      // references were resolved by the caller; anything left is not an item
      if ("type" in item && item.type !== "payloadRef") updates.push(...itemUpdates(item as ThreadItem, cwd));
    }
  }
  return updates;
}
