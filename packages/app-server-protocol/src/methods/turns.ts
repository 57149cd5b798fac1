/** Turn methods: start, steer, interrupt, queue. */
import Type, { type Static } from "typebox";
import { ImageInput, McpResourceRef } from "../shapes.ts";

const ThreadId = Type.String({ minLength: 1, maxLength: 256 });
/** Echoed on the first live `userMessage` of the turn the input starts; never persisted. */
const ClientMessageId = Type.String({ minLength: 1, maxLength: 128 });
const Images = Type.Array(ImageInput, { maxItems: 32 });

export const TurnStartParams = Type.Object({
  threadId: ThreadId,
  text: Type.String(),
  /** Client token echoed in the result and in `turn/started`; distinct from the JSON id. */
  requestId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  clientMessageId: Type.Optional(ClientMessageId),
  images: Type.Optional(Images),
  /** MCP resources read when the turn starts and attached to its user message as context. */
  resources: Type.Optional(Type.Array(McpResourceRef, { maxItems: 16 })),
});
export type TurnStartParams = Static<typeof TurnStartParams>;

export const TurnStartResult = Type.Object({
  status: Type.Union([Type.Literal("started"), Type.Literal("handled"), Type.Literal("cancelled")]),
  /** The effective target thread (a session-replacing command may change it). */
  threadId: Type.String(),
  requestId: Type.Optional(Type.String()),
});
export type TurnStartResult = Static<typeof TurnStartResult>;

export const TurnSteerParams = Type.Object({
  threadId: ThreadId,
  /** The running turn's ID; a stale one returns `turnMismatch`. */
  expectedTurnId: Type.String({ minLength: 1 }),
  text: Type.String(),
  images: Type.Optional(Images),
});
export type TurnSteerParams = Static<typeof TurnSteerParams>;

export const TurnSteerResult = Type.Object({ turnId: Type.String() });
export type TurnSteerResult = Static<typeof TurnSteerResult>;

export const TurnInterruptParams = Type.Object({
  threadId: ThreadId,
  turnId: Type.Optional(Type.String({ minLength: 1 })),
});
export type TurnInterruptParams = Static<typeof TurnInterruptParams>;

export const TurnInterruptResult = Type.Object({});
export type TurnInterruptResult = Static<typeof TurnInterruptResult>;

export const TurnQueueAddParams = Type.Object({
  threadId: ThreadId,
  text: Type.String(),
  clientMessageId: Type.Optional(ClientMessageId),
  images: Type.Optional(Images),
});
export type TurnQueueAddParams = Static<typeof TurnQueueAddParams>;

export const TurnQueueAddResult = Type.Object({ queueId: Type.String() });
export type TurnQueueAddResult = Static<typeof TurnQueueAddResult>;

export const TurnQueueRemoveParams = Type.Object({
  threadId: ThreadId,
  queueId: Type.String({ minLength: 1 }),
});
export type TurnQueueRemoveParams = Static<typeof TurnQueueRemoveParams>;

export const TurnQueueRemoveResult = Type.Object({ removed: Type.Boolean() });
export type TurnQueueRemoveResult = Static<typeof TurnQueueRemoveResult>;
