export type {
  BranchEntries,
  BranchSummaryDraft,
  BranchSummaryPreparation,
  BranchSummaryResult,
  EntryLookup,
  PreparedBranch,
  SummarizeBranchOptions,
  SummarizeBranchOutcome,
} from "./branch-summary.ts";
export {
  BRANCH_SUMMARY_MAX_TOKENS,
  collectEntriesForBranchSummary,
  generateBranchSummary,
  NO_SUMMARY_MODEL_MESSAGE,
  pathTo,
  prepareBranchEntries,
  summarizeBranch,
} from "./branch-summary.ts";
export type { CompactionCheckPoint, ThresholdCheck } from "./check-points.ts";
export { checksThresholdAt, checkThreshold } from "./check-points.ts";
export type { CutPoint } from "./cut-point.ts";
export { canAdvanceIntoSuffix, findCutPoint, findSpanStart, invisibleSuffixStart } from "./cut-point.ts";
export type { FileListDetails, FileOperations } from "./file-ops.ts";
export {
  addFileOpsFromDetails,
  addFileOpsFromMessage,
  computeFileLists,
  createFileOps,
  formatFileLists,
} from "./file-ops.ts";
export type {
  CompactionHooks,
  CompactionReason,
  ExtensionCompaction,
  SessionBeforeCompactEvent,
  SessionBeforeCompactResult,
  SessionBeforeTreeEvent,
  SessionBeforeTreeResult,
  SessionCompactEvent,
  SessionCompactFailedEvent,
} from "./hooks.ts";
export { noopCompactionHooks } from "./hooks.ts";
export type { CompactionPreparation } from "./prepare.ts";
export { prepareCompaction, summarizeStartIndex } from "./prepare.ts";
export type { PathView, ProjectedContext } from "./projection.ts";
export {
  compactionSummaryMessage,
  contextMessages,
  indexOnPath,
  keptStartIndex,
  projectedContext,
  projectedContextTokens,
  projectPath,
} from "./projection.ts";
export {
  BRANCH_SUMMARY_PREAMBLE,
  BRANCH_SUMMARY_PROMPT,
  COMPACTION_PROMPT,
  COMPACTION_UPDATE_PROMPT,
  SUMMARIZER_SYSTEM_PROMPT,
  TURN_PREFIX_PROMPT,
} from "./prompts.ts";
export type {
  RecoveryExecutor,
  RecoveryKind,
  RecoveryPlan,
  RecoveryResult,
  RecoverySelectionInput,
  RecoveryStep,
} from "./recovery.ts";
export {
  executeRecoveryPlan,
  isContextOverflow,
  isEarlyLengthStop,
  omissionEdit,
  selectRecovery,
} from "./recovery.ts";
export type {
  CompactionDraft,
  CompactionOutcome,
  CompactionSessionPort,
  RunCompactionOptions,
} from "./run-compaction.ts";
export { branchContextTokens, runCompaction } from "./run-compaction.ts";
export {
  serializeConversation,
  serializeMessage,
  TOOL_RESULT_MAX_CHARS,
  truncateForSummary,
} from "./serialize.ts";
export { sessionFilePort } from "./session-port.ts";
export type { CompactionSettings } from "./settings.ts";
export { DEFAULT_COMPACTION_SETTINGS, shouldCompact } from "./settings.ts";
export type {
  CompactionResult,
  CompleteFunction,
  HistorySummaryOptions,
  SummaryModel,
  SummaryWithUsage,
} from "./summarize.ts";
export {
  addUsage,
  compact,
  generateSummary,
  generateSummaryWithUsage,
  generateTurnPrefixSummary,
  historySummaryPrompt,
  requestSummary,
  SummarizationError,
} from "./summarize.ts";
export type { ContextTokenEstimate } from "./tokens.ts";
export {
  estimateContextTokens,
  estimateMessageTokens,
  hasReliableUsage,
  IMAGE_CHARS,
  messageChars,
  usageContextTokens,
} from "./tokens.ts";
