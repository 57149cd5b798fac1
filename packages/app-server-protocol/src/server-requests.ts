/** Server-to-client requests. */
import Type, { type Static } from "typebox";
import { MAX_DECLINE_MESSAGE_CHARS } from "./limits.ts";
import { ApprovalDecision, PayloadRef } from "./shapes.ts";

/**
 * What an approval would let happen, computed before asking so every client can show it:
 * a file tool's change (the unified diff, `diffRef` when it is too large to inline, and
 * `error` when the call would fail as asked), a shell command with the folder it runs
 * in, where an extension or MCP tool comes from, or what an MCP server's sampling request
 * would ask the thread's model (its system prompt, messages as text, and token cap).
 */
export const ApprovalPreview = Type.Union([
  Type.Object({
    type: Type.Literal("fileChange"),
    /** Absolute path of the file. */
    path: Type.String(),
    kind: Type.Union([Type.Literal("add"), Type.Literal("modify")]),
    diff: Type.Optional(Type.String()),
    diffRef: Type.Optional(PayloadRef),
    error: Type.Optional(Type.String()),
  }),
  Type.Object({
    type: Type.Literal("command"),
    command: Type.String(),
    cwd: Type.String(),
  }),
  Type.Object({
    type: Type.Literal("tool"),
    source: Type.Union([Type.Literal("extension"), Type.Literal("mcp")]),
    /** The MCP server, or the extension's file. */
    server: Type.String(),
    /** The tool's own name at its source (an MCP server's name for it). */
    tool: Type.String(),
  }),
  Type.Object({
    type: Type.Literal("sampling"),
    /** The MCP server asking. */
    server: Type.String(),
    systemPrompt: Type.Optional(Type.String()),
    messages: Type.Array(
      Type.Object({
        role: Type.Union([Type.Literal("user"), Type.Literal("assistant")]),
        text: Type.String(),
      }),
    ),
    maxTokens: Type.Integer({ minimum: 1 }),
  }),
]);
export type ApprovalPreview = Static<typeof ApprovalPreview>;

export const ItemToolCallRequestApprovalParams = Type.Object({
  threadId: Type.String(),
  turnId: Type.String(),
  itemId: Type.String(),
  toolName: Type.String(),
  input: Type.Optional(Type.Unknown()),
  inputRef: Type.Optional(PayloadRef),
  /** The choices to render; anything else counts as decline. */
  decisions: Type.Array(ApprovalDecision, { minItems: 1 }),
  reason: Type.Optional(Type.String()),
  /** The shell command prefix `acceptPrefixForSession` would grant. */
  prefix: Type.Optional(Type.String()),
  /** What the call would do; absent when the server cannot tell (an unknown tool). */
  preview: Type.Optional(ApprovalPreview),
});
export type ItemToolCallRequestApprovalParams = Static<typeof ItemToolCallRequestApprovalParams>;

export const ItemToolCallRequestApprovalResult = Type.Object({
  decision: ApprovalDecision,
  message: Type.Optional(Type.String({ maxLength: MAX_DECLINE_MESSAGE_CHARS })),
});
export type ItemToolCallRequestApprovalResult = Static<typeof ItemToolCallRequestApprovalResult>;
