/** Thread objects for threads that are not loaded: list rows and read-only reads. */
import type { Thread, ThreadStatus, ThreadSummary } from "@knightcode/app-server-protocol";
import { isSessionWorktree, type SessionFile, type SessionSummary } from "@knightcode/session-store";
import { branchSettings } from "./thread-loader.ts";
import { firstUserText } from "./thread-runtime.ts";

/** A list row from the store's cached summary and the thread's current status. */
export function summaryOf(summary: SessionSummary, status: ThreadStatus): ThreadSummary {
  const out: ThreadSummary = {
    id: summary.id,
    cwd: summary.cwd,
    createdAt: summary.createdAt,
    updatedAt: summary.updatedAt,
    archived: summary.archived,
    status,
    path: summary.path,
  };
  if (summary.title !== undefined) out.title = summary.title;
  if (summary.name !== undefined) out.name = summary.name;
  if (summary.messageCount !== undefined) out.messageCount = summary.messageCount;
  if (summary.forkedFromId !== undefined) out.forkedFromId = summary.forkedFromId;
  if (summary.worktree !== undefined) out.worktree = summary.worktree;
  return out;
}

/** A thread object for a transcript read without loading it. */
export function unloadedThread(session: SessionFile, archived: boolean, status: ThreadStatus): Thread {
  const settings = branchSettings(session, "ask");
  const last = session.entries.at(-1);
  const thread: Thread = {
    id: session.id,
    cwd: session.header.cwd,
    createdAt: session.header.timestamp,
    updatedAt: last ? last.timestamp : session.header.timestamp,
    archived,
    status,
    path: session.path,
    thinkingLevel: settings.thinkingLevel,
    approvalMode: settings.approvalMode,
  };
  const title = session.name ?? firstUserText(session.entries);
  if (title !== undefined) thread.title = title;
  if (session.name !== undefined) thread.name = session.name;
  if (session.header.forkedFromId !== undefined) thread.forkedFromId = session.header.forkedFromId;
  if (isSessionWorktree(session.header.worktree)) thread.worktree = session.header.worktree;
  if (settings.model) thread.model = settings.model;
  return thread;
}
