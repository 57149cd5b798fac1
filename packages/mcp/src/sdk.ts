/**
 * The MCP SDK, loaded when the first server starts. Its modules build hundreds of zod
 * schemas as they load (about 25 ms of CPU in the compiled binary, far more from source),
 * and a thread without MCP servers must not pay that on its way to `thread/start`.
 * Everything that needs the SDK's values goes through `loadMcpSdk`; types stay static.
 */
import type { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { OAuthFlow } from "./oauth-flow.ts";
import type { ChildStdioTransport } from "./stdio-transport.ts";

/** The SDK values the connections use (named, so declarations of this package stay portable). */
export interface McpSdk {
  Client: typeof Client;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  CallToolResultSchema: typeof CallToolResultSchema;
  CreateMessageRequestSchema: typeof CreateMessageRequestSchema;
  McpError: typeof McpError;
  ToolListChangedNotificationSchema: typeof ToolListChangedNotificationSchema;
  PromptListChangedNotificationSchema: typeof PromptListChangedNotificationSchema;
  ResourceListChangedNotificationSchema: typeof ResourceListChangedNotificationSchema;
  ChildStdioTransport: typeof ChildStdioTransport;
  UnauthorizedError: typeof UnauthorizedError;
  OAuthFlow: typeof OAuthFlow;
}

async function importSdk(): Promise<McpSdk> {
  const [client, http, types, stdio, auth, flow] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("./stdio-transport.ts"),
    import("@modelcontextprotocol/sdk/client/auth.js"),
    import("./oauth-flow.ts"),
  ]);
  return {
    Client: client.Client,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    CallToolResultSchema: types.CallToolResultSchema,
    CreateMessageRequestSchema: types.CreateMessageRequestSchema,
    McpError: types.McpError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    PromptListChangedNotificationSchema: types.PromptListChangedNotificationSchema,
    ResourceListChangedNotificationSchema: types.ResourceListChangedNotificationSchema,
    ChildStdioTransport: stdio.ChildStdioTransport,
    UnauthorizedError: auth.UnauthorizedError,
    OAuthFlow: flow.OAuthFlow,
  };
}

let loading: Promise<McpSdk> | undefined;

/** The SDK's classes and schemas, imported once per process. */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= importSdk();
  return loading;
}
