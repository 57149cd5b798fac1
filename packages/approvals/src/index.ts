export type { CommandSpec, SubcommandSpec } from "./command-table.ts";
export { BASH_COMMANDS, POWERSHELL_COMMANDS } from "./command-table.ts";
export type {
  ApprovalDecision,
  ApprovalReply,
  ApprovalRequest,
  DecisionOutcome,
  ReplyValidation,
} from "./decisions.ts";
export {
  APPROVAL_DECISIONS,
  applyDecision,
  characterCount,
  MAX_DECLINE_MESSAGE_CHARS,
  validateApprovalReply,
} from "./decisions.ts";
export type { GateResult, ToolCallGateInput } from "./gate.ts";
export { gateToolCall, SHELL_TOOLS, shellKindOf } from "./gate.ts";
export type { PrefixGrant, SessionGrants, ShellKind } from "./grants.ts";
export {
  emptyGrants,
  findCoveringGrant,
  formatShellPrefix,
  grantCovers,
  samePrefix,
  withPrefixGrant,
  withToolGrant,
} from "./grants.ts";
export { isMcpToolName, MCP_TOOL_PREFIX } from "./mcp-tools.ts";
export type { ApprovalMode, ToolClass } from "./modes.ts";
export {
  ALWAYS_ALLOWED_TOOLS,
  APPROVAL_MODES,
  defaultApprovalMode,
  EDIT_TOOLS,
  isApprovalMode,
  modeVerdict,
  restoreApprovalMode,
  toolClass,
} from "./modes.ts";
export { nodeRealpath } from "./node-realpath.ts";
export { posixWords } from "./posix-words.ts";
export { powershellWords } from "./powershell-words.ts";
export type { GatedCall, PreGateRestriction, RestrictionVerdict } from "./restrictions.ts";
export { classifierRestriction, commandOf, planModeRestriction } from "./restrictions.ts";
export type {
  ApprovalRouter,
  PendingApproval,
  RouterEffect,
  RouterEvent,
  RouterState,
  RouterStep,
  RouterSubscriber,
} from "./routing.ts";
export { askOrder, createApprovalRouter, initialRouterState, routeApproval } from "./routing.ts";
export type { ShellCommandAnalysis } from "./shell-prefix.ts";
export { analyzeShellCommand, shellPrefix } from "./shell-prefix.ts";
export type { ShellWord } from "./shell-word.ts";
export { MAX_ANALYSED_COMMAND_LENGTH, MAX_ANALYSED_WORDS } from "./shell-word.ts";
export type { RealpathFn, ResolvedTarget } from "./workspace-path.ts";
export {
  isOutsideWorkspace,
  isToolPathOutsideWorkspace,
  isWithin,
  resolveTarget,
  toolPathCandidates,
} from "./workspace-path.ts";
