/**
 * Where transcripts live: the per-project directory layout, file naming and the archive
 * folder. Which directory a thread uses (the `--session-dir` / environment / setting
 * order and the agent dir) is decided by `@knightcode/config`.
 */
import { join } from "node:path";

/** Folder beside the live transcripts that holds archived ones (same file names). */
export const ARCHIVE_DIR_NAME = "archive";

/** Root of the per-project layout: `<agent-dir>/sessions`. */
export function sessionsRoot(agentDir: string): string {
  return join(agentDir, "sessions");
}

/** `--<cwd without leading slash, with / \ : replaced by ->--`. */
export function projectDirName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/** `<ISO time with : and . replaced by ->_<id>.jsonl`. */
export function sessionFileName(timestamp: string, id: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`;
}

/** The `archive/` folder beside a directory of live transcripts. */
export function archiveDirOf(liveDir: string): string {
  return join(liveDir, ARCHIVE_DIR_NAME);
}
