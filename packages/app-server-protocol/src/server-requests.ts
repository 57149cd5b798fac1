/** Server-to-client requests. */
import Type, { type Static } from "typebox";
import { MAX_DECLINE_MESSAGE_CHARS } from "./limits.ts";
import { ApprovalDecision, PayloadRef } from "./shapes.ts";

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
});
export type ItemToolCallRequestApprovalParams = Static<typeof ItemToolCallRequestApprovalParams>;

export const ItemToolCallRequestApprovalResult = Type.Object({
  decision: ApprovalDecision,
  message: Type.Optional(Type.String({ maxLength: MAX_DECLINE_MESSAGE_CHARS })),
});
export type ItemToolCallRequestApprovalResult = Static<typeof ItemToolCallRequestApprovalResult>;
