/** MCP servers: what a thread or a project would run, with status and tools. */
import Type, { type Static } from "typebox";
import { McpServerStatus, PathString } from "../shapes.ts";

export const McpServerListParams = Type.Union([
  Type.Object({ threadId: Type.String({ minLength: 1, maxLength: 256 }) }),
  Type.Object({ cwd: PathString }),
]);
export type McpServerListParams = Static<typeof McpServerListParams>;

export const McpServerListResult = Type.Object({ servers: Type.Array(McpServerStatus) });
export type McpServerListResult = Static<typeof McpServerListResult>;
