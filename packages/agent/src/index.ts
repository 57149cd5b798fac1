export { Agent, AgentBusyError } from "./agent.ts";
export { defaultConvertToLlm, type LoopHost, runAgentLoop } from "./loop.ts";
export { PathLock } from "./path-lock.ts";
export {
  abortableSleep,
  DEFAULT_RETRY,
  isTransientFailure,
  resolveRetryOptions,
  retryDelayMs,
  retryLimit,
} from "./retry.ts";
export { failureMessage } from "./stream-assistant.ts";
export { MISSING_RESULT_TEXT, repairToolPairs } from "./tool-pairing.ts";
export { DEFAULT_TOOL_ABORT_GRACE_MS } from "./tool-runner.ts";
export { type BashDetails, BashParams, createBashTool } from "./tools/bash.ts";
export {
  BUILTIN_TOOL_NAMES,
  type BuiltinToolName,
  type BuiltinToolsOptions,
  createBuiltinTools,
} from "./tools/builtin-tools.ts";
export { isCredentialName, scrubCredentials } from "./tools/credential-env.ts";
export { createEditTool, type EditDetails, EditParams } from "./tools/edit.ts";
export { applyEdits, dominantEol, EditError, type EditErrorCode, type TextEdit } from "./tools/edit-match.ts";
export { fileChange, unifiedDiff } from "./tools/file-diff.ts";
export { createFindTool, type FindDetails, FindParams, findFdBinary } from "./tools/find.ts";
export { createGrepTool, type GrepDetails, GrepParams } from "./tools/grep.ts";
export {
  type AskUserHandler,
  AskUserParams,
  createAskUserTool,
  createSubmitPlanTool,
  type SubmitPlanHandler,
  SubmitPlanParams,
} from "./tools/host-tools.ts";
export { detectImageMime } from "./tools/image.ts";
export { createLsTool, type LsDetails, LsParams } from "./tools/ls.ts";
export {
  createLocalOperations,
  type DirEntry,
  type FileStat,
  type LocalOperationsOptions,
  type SpawnRequest,
  type SpawnResult,
  type ToolOperations,
} from "./tools/operations.ts";
export { resolveToolPath } from "./tools/paths.ts";
export { createReadTool, type ReadDetails, ReadParams } from "./tools/read.ts";
export { spawnLocal } from "./tools/spawn-local.ts";
export type { ToolEnv } from "./tools/tool-env.ts";
export {
  formatSize,
  MAX_BYTES,
  MAX_LINES,
  type Truncation,
  truncateHead,
  truncateTail,
} from "./tools/truncate.ts";
export { createWriteTool, type WriteDetails, WriteParams } from "./tools/write.ts";
export type {
  AgentEvent,
  AgentListener,
  AgentOptions,
  AgentTool,
  AgentToolResult,
  AnyAgentTool,
  BeforeToolCallContext,
  FileChange,
  FileChangePreview,
  MessageEndDecision,
  QueueMode,
  RetryOptions,
  RoleMessage,
  ToolCallDecision,
  ToolCallInfo,
  ToolExecutionContext,
  ToolOrigin,
} from "./types.ts";
export { type ArgsValidation, compileToolSchema, validateToolArgs } from "./validate-args.ts";
