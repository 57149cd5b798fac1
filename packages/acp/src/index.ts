/** @knightcode/acp: the Agent Client Protocol over the in-process app server. */
export { type AcpAgentOptions, createAcpAgent, initializeResponse } from "./acp-agent.ts";
export { AcpSession, usageUpdate } from "./acp-session.ts";
export { currentText, DIFF_OLD_TEXT_LIMIT_BYTES } from "./current-text.ts";
export { CREDENTIALS_HINT, toRequestError, turnFailed } from "./errors.ts";
export { itemUpdates, replayedToolCall, replayUpdates } from "./history-replay.ts";
export {
  type ListedMcpServer,
  MAX_MCP_SERVERS,
  MCP_NOT_HONOURED,
  type McpServerRefusal,
  type McpTranslation,
  mcpServersNotRunning,
  translateMcpServers,
} from "./mcp-servers.ts";
export { DEFAULT_MODE, isApprovalMode, modeState, runsWithoutAsking, SESSION_MODES } from "./modes.ts";
export { allows, decisionFor, type OfferedApproval, permissionOptions } from "./permissions.ts";
export { promptToTurnInput, type TurnInput, UnsupportedContentError, uriToPath } from "./prompt-content.ts";
export { type ServeAcpOptions, serveAcp } from "./serve-acp.ts";
export { acpStdioStream, type LineSink } from "./stdio-stream.ts";
export {
  finalStatus,
  outputContent,
  toolDiffs,
  toolKind,
  toolLocations,
  toolPath,
  toolTitle,
} from "./tool-calls.ts";
