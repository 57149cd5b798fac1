export { archiveSession, deleteArchivedSession, isArchivedPath, unarchiveSession } from "./archive.ts";
export type { ContextEdits, ProjectedMessage, SessionContext } from "./context.ts";
export {
  buildSessionContext,
  collectContextEdits,
  entryMessage,
  projectSession,
  toModelMessages,
} from "./context.ts";
export type { IndexMemo, ListingCounters, ScanIo, SessionSummary } from "./directory-scan.ts";
export {
  createListingCounters,
  defaultScanIo,
  MAX_OPEN_TRANSCRIPTS,
  MAX_UNSAVED_GROWTH_BYTES,
  scanDirectory,
} from "./directory-scan.ts";
export type {
  AgentMessage,
  ApprovalMode,
  ApprovalModeEntry,
  AssistantMessage,
  BashExecutionMessage,
  BranchSummaryEntry,
  BranchSummaryMessage,
  CompactionEntry,
  CompactionSummaryMessage,
  ContextEditEntry,
  CustomEntry,
  CustomMessage,
  CustomMessageEntry,
  LabelEntry,
  MessageEntry,
  ModelChangeEntry,
  NewEntry,
  SessionEntry,
  SessionFileLine,
  SessionHeader,
  SessionInfoEntry,
  SessionWorktree,
  ThinkingLevelChangeEntry,
  TurnEndEntry,
  TurnOutcome,
  TurnStartEntry,
} from "./entries.ts";
export { APPROVAL_MODES, CURRENT_SESSION_VERSION, isSessionWorktree } from "./entries.ts";
export type { DamageCount, SessionDamage } from "./entry-links.ts";
export { isDamaged } from "./entry-links.ts";
export type { SessionStoreErrorCode } from "./errors.ts";
export {
  ArchiveConflictError,
  InvalidCursorError,
  InvalidSessionError,
  OwnershipLostError,
  SessionStoreError,
  ThreadLockedElsewhereError,
  ThreadNotArchivedError,
  ThreadNotFoundError,
} from "./errors.ts";
export type { ParsedSession } from "./format.ts";
export {
  createEntryId,
  createSessionId,
  MissingHeaderError,
  parseHeaderLine,
  parseSessionBytes,
  serializeLine,
} from "./format.ts";
export type { BranchTurns, HistoryPage, HistoryPageQuery, TurnGroup } from "./history.ts";
export { groupTurns, historyPage, MAX_HISTORY_PAGE_TURNS, measureTurn } from "./history.ts";
export { JSON_SLICE_UNITS, jsonPieces } from "./json-pieces.ts";
export {
  ARCHIVE_DIR_NAME,
  archiveDirOf,
  projectDirName,
  sessionFileName,
  sessionsRoot,
} from "./locations.ts";
export type { LockInfo } from "./lock.ts";
export { isPidAlive, lockPathFor, processStartTime, readLockInfo, SessionLock } from "./lock.ts";
export type { AppendOptions, CreateSessionOptions, InitialEntry, SyncingSession } from "./session-file.ts";
export { SessionFile } from "./session-file.ts";
export { ENTRY_ID_PATTERN, writePieces } from "./session-file-io.ts";
export type { IndexRecord, LoadedIndex } from "./thread-index.ts";
export { loadThreadIndex, MAX_INDEX_BYTES, saveThreadIndex, THREAD_INDEX_FILE } from "./thread-index.ts";
export type { ListPage, ListQuery, ThreadListerOptions } from "./thread-lister.ts";
export {
  DEFAULT_LIST_LIMIT,
  ENVELOPE_RESERVE_BYTES,
  LIST_SNAPSHOT_TTL_MS,
  MAX_LIST_SNAPSHOTS,
  MAX_RESPONSE_BYTES,
  projectSessionDirs,
  ThreadLister,
} from "./thread-lister.ts";
export type { TranscriptFacts } from "./transcript-scan.ts";
export { boundTitle, MAX_TITLE_CHARS, readHeader, scanTranscript } from "./transcript-scan.ts";
