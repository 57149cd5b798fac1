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
export { BUILTIN_COMMANDS, TERMINAL_ONLY_COMMANDS } from "./commands.ts";
export { createCompactionWiring, currentContextTokens, noCompaction } from "./compaction-wiring.ts";
export {
  callHook,
  type ExtensionContext,
  type ExtensionHooks,
  type ExtensionHost,
  type ExtensionHostFactory,
  type InputHookResult,
  noopExtensionHostFactory,
} from "./extension-hooks.ts";
export { fileChangesOf, validateFileChanges } from "./file-changes.ts";
export {
  contentText,
  type DeclinedResultDetails,
  isDeclinedResult,
  type ProjectedTurn,
  type ProjectionOptions,
  projectHistory,
  projectTurnGroup,
  projectTurns,
  turnSummary,
} from "./history-projection.ts";
export { MAX_IMAGE_BYTES, resolveImages, sniffImageType } from "./image-inputs.ts";
export {
  demoModelSource,
  type ModelSource,
  registryModelSource,
  staticModelSource,
  toProtocolModel,
  warmingModelSource,
} from "./model-source.ts";
export { createThreadManager, ThreadManager, type ThreadManagerOptions } from "./thread-manager.ts";
export { IDLE_UNLOAD_MS } from "./thread-registry.ts";
export {
  isolatedToolBackendFactory,
  shellEnvironmentAllow,
  type ThreadToolBackend,
  type ToolBackendFactory,
  type ToolBackendRequest,
  type ToolIsolationOptions,
} from "./tool-backend.ts";
export {
  collectTools,
  type ThreadToolSource,
  type ThreadToolSourceFactory,
  type ToolSourceContext,
} from "./tool-sources.ts";
export { boundErrorMessage, classifyErrorText, SUMMARY_ERROR_MESSAGE_LIMIT } from "./turn-error.ts";
export type { CompactionHooks, ManualCompactionOutcome, TurnEnvironment } from "./turn-runner.ts";
