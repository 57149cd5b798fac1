/** @knightcode/mcp: MCP servers from settings or a protocol client, as agent tools. */
export { agentToolOf, inputSchemaOf } from "./agent-tools.ts";
export { type ConnectionLease, connectionKey, McpHub, type McpHubOptions } from "./mcp-hub.ts";
export { type McpPromptArgument, type McpPromptCommand, promptCommandsOf } from "./prompt-commands.ts";
export { type McpToolDetails, toolResultOf } from "./result-content.ts";
export {
  type McpSampler,
  SamplingDeclinedError,
  type SamplingMessage,
  type SamplingReply,
  type SamplingRequest,
} from "./sampling.ts";
export {
  type ConnectionEvent,
  type ConnectionOptions,
  type ConnectionState,
  DEFAULT_START_TIMEOUT_MS,
  McpServerConnection,
  PROMPT_GET_TIMEOUT_MS,
  RESOURCE_READ_TIMEOUT_MS,
  TOOL_CALL_TIMEOUT_MS,
} from "./server-connection.ts";
export { INHERITED_ENV_VARS, serverEnvironment } from "./server-env.ts";
// the stdio transport's class loads with the SDK (see sdk.ts); its types are static
export type { ChildStdioTransport, StdioServerProcess, StdioTransportEvents } from "./stdio-transport.ts";
export {
  type McpWarning,
  serverStatus,
  ThreadMcpServers,
  type ThreadServerSpec,
  type ThreadServersOptions,
  threadServerSpecs,
} from "./thread-servers.ts";
export { MAX_TOOL_NAME_LENGTH, mcpToolName, safeSegment, uniqueToolNames } from "./tool-names.ts";
