/** MCP servers: what a thread or a project would run, with status and tools; reading a resource. */
import Type, { type Static } from "typebox";
import { McpResourceRef, McpServerStatus, PathString } from "../shapes.ts";

export const McpServerListParams = Type.Union([
  Type.Object({ threadId: Type.String({ minLength: 1, maxLength: 256 }) }),
  Type.Object({ cwd: PathString }),
]);
export type McpServerListParams = Static<typeof McpServerListParams>;

export const McpServerListResult = Type.Object({ servers: Type.Array(McpServerStatus) });
export type McpServerListResult = Static<typeof McpServerListResult>;

export const McpServerResourceReadParams = Type.Object({
  threadId: Type.String({ minLength: 1, maxLength: 256 }),
  ...McpResourceRef.properties,
});
export type McpServerResourceReadParams = Static<typeof McpServerResourceReadParams>;

/** One part of a read resource: text, or base64 `blob` for binary content. */
export const McpResourceContents = Type.Union([
  Type.Object({ uri: Type.String(), mimeType: Type.Optional(Type.String()), text: Type.String() }),
  Type.Object({ uri: Type.String(), mimeType: Type.Optional(Type.String()), blob: Type.String() }),
]);
export type McpResourceContents = Static<typeof McpResourceContents>;

export const McpServerResourceReadResult = Type.Object({ contents: Type.Array(McpResourceContents) });
export type McpServerResourceReadResult = Static<typeof McpServerResourceReadResult>;
