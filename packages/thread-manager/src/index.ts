/** @knightcode/thread-manager: the runtime behind every thread and turn of the app server. */
export type {
  AppServerError,
  Caller,
  OutgoingRequest,
  ServerRequestPort,
  ThreadManagerApi,
  ThreadManagerDiagnostics,
  ThreadManagerEvent,
} from "./api.ts";
export { type Clock, type ClockTimer, ManualClock, systemClock } from "./clock.ts";
export { BUILTIN_COMMANDS, TERMINAL_ONLY_COMMANDS } from "./commands/commands.ts";
export {
  callHook,
  type ExtensionContext,
  type ExtensionHooks,
  type ExtensionHost,
  type ExtensionHostFactory,
  type InputHookResult,
  noopExtensionHostFactory,
} from "./extensions/extension-hooks.ts";
export {
  type DeclinedResultDetails,
  isDeclinedResult,
  type ProjectedTurn,
  type ProjectionOptions,
  projectHistory,
  projectTurnGroup,
  projectTurns,
  turnSummary,
} from "./history/history-projection.ts";
export { contentText } from "./history/message-content.ts";
export { createThreadManager, ThreadManager, type ThreadManagerOptions } from "./thread-manager.ts";
export {
  demoModelSource,
  type ModelSource,
  registryModelSource,
  staticModelSource,
  toProtocolModel,
  warmingModelSource,
} from "./threads/model-source.ts";
export {
  DEFAULT_REPLAY_LIMITS,
  ReplayBuffer,
  type ReplayEntry,
  type ReplayLimits,
  replayGap,
} from "./threads/replay-buffer.ts";
export { IDLE_UNLOAD_MS } from "./threads/thread-registry.ts";
export {
  isolatedToolBackendFactory,
  shellEnvironmentAllow,
  type ThreadToolBackend,
  type ToolBackendFactory,
  type ToolBackendRequest,
  type ToolIsolationOptions,
} from "./tools/tool-backend.ts";
export {
  collectTools,
  type ThreadToolSource,
  type ThreadToolSourceFactory,
  type ToolSourceContext,
} from "./tools/tool-sources.ts";
export { createCompactionWiring, currentContextTokens, noCompaction } from "./turns/compaction-wiring.ts";
export type { CompactionHooks, ManualCompactionOutcome, TurnEnvironment } from "./turns/environment.ts";
export { fileChangesOf, validateFileChanges } from "./turns/file-changes.ts";
export { MAX_IMAGE_BYTES, resolveImages, sniffImageType } from "./turns/image-inputs.ts";
export { boundErrorMessage, classifyErrorText, SUMMARY_ERROR_MESSAGE_LIMIT } from "./turns/turn-error.ts";
