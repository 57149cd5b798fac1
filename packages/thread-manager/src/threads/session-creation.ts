/**
 * Creating transcripts: a new thread's file with its initial settings, and a fork that
 * copies a branch into a new session. Both write their first entries with the header
 * (`initialEntries`: two fsyncs, file and directory) and hand the file back before they
 * are done (`SessionFile.createSyncing`): the fsyncs run on the thread pool while the
 * thread is adopted, and nothing is acknowledged before `ensureDurable`. A fork's copies
 * get new entry IDs, so every reference between entries (turn ends, compaction
 * boundaries, context edits, labels, branch summaries) is rewritten to the copy's IDs.
 */
import type { Model } from "@knightcode/ai";
import type { ApprovalMode, ThinkingLevel } from "@knightcode/app-server-protocol";
import {
  createEntryId,
  type InitialEntry,
  isSessionWorktree,
  type NewEntry,
  type SessionEntry,
  SessionFile,
  type SessionWorktree,
  type SyncingSession,
} from "@knightcode/session-store";
import { firstUserText } from "./thread-runtime.ts";

function remap(entry: SessionEntry, ids: Map<string, string>): NewEntry {
  const { id: _id, parentId: _parent, ...rest } = entry;
  const map = (id: string) => ids.get(id) ?? id;
  switch (rest.type) {
    case "turn_end":
      return { ...rest, turnId: map(rest.turnId) };
    case "compaction":
      return { ...rest, firstKeptEntryId: map(rest.firstKeptEntryId) };
    case "branch_summary":
      return { ...rest, fromId: map(rest.fromId) };
    case "label":
      return { ...rest, targetId: map(rest.targetId) };
    case "context_edit":
      return {
        ...rest,
        ...(rest.omit ? { omit: rest.omit.map(map) } : {}),
        ...(rest.replace ? { replace: rest.replace.map((r) => ({ ...r, entryId: map(r.entryId) })) } : {}),
      };
    default:
      return rest as NewEntry;
  }
}

/**
 * Appends `branch` (root first) to `target`, keeping timestamps; returns old-to-new IDs.
 * Each copy's ID is reserved before its references are rewritten, so an entry that names
 * itself (a retain-none compaction's `firstKeptEntryId`) names its copy, not the source.
 */
export function copyBranch(branch: readonly SessionEntry[], target: SessionFile): Map<string, string> {
  const ids = new Map<string, string>();
  for (const entry of branch) {
    const id = target.reserveEntryId();
    ids.set(entry.id, id);
    target.append(remap(entry, ids), { id });
  }
  return ids;
}

/**
 * `branch` (root first) as a new file's initial entries, timestamps kept, under fresh IDs
 * with every reference rewritten to them; returns the entries and old-to-new IDs. Each
 * copy's ID is chosen before its references are rewritten, so an entry that names itself
 * (a retain-none compaction's `firstKeptEntryId`) names its copy, not the source.
 */
export function remapBranch(branch: readonly SessionEntry[]): {
  entries: InitialEntry[];
  ids: Map<string, string>;
} {
  const ids = new Map<string, string>();
  const taken = new Set<string>();
  const entries: InitialEntry[] = [];
  for (const entry of branch) {
    const id = createEntryId(taken);
    taken.add(id);
    ids.set(entry.id, id);
    entries.push({ ...remap(entry, ids), id } as InitialEntry);
  }
  return { entries, ids };
}

/** Entry types that only record settings or extension state: a thread with nothing else was never used. */
const UNUSED_THREAD_ENTRIES: ReadonlySet<SessionEntry["type"]> = new Set([
  "approval_mode",
  "model_change",
  "thinking_level_change",
  "custom",
  "label",
]);

/** Whether `entry` makes a new thread's transcript worth a file: input (a turn, a `!command`), a name. */
export function countsAsUse(entry: SessionEntry): boolean {
  return !UNUSED_THREAD_ENTRIES.has(entry.type);
}

/**
 * A new thread's transcript with its approval mode, model, thinking level and name. It
 * is written from its first use (`countsAsUse`: a turn's start marker, a `!command`'s
 * output, a name; a name given here writes it at once), the header and initial entries
 * together before the one file fsync, so a thread that never got input leaves no file.
 */
export async function createThreadSession(
  dir: string,
  params: { cwd: string; thinkingLevel?: ThinkingLevel; name?: string },
  initial: { approvalMode: ApprovalMode; model: Model | undefined; worktree?: SessionWorktree },
): Promise<SyncingSession> {
  const initialEntries: InitialEntry[] = [{ type: "approval_mode", mode: initial.approvalMode }];
  if (initial.model) {
    initialEntries.push({
      type: "model_change",
      provider: initial.model.provider,
      modelId: initial.model.id,
    });
  }
  if (params.thinkingLevel) {
    initialEntries.push({ type: "thinking_level_change", thinkingLevel: params.thinkingLevel });
  }
  if (params.name) initialEntries.push({ type: "session_info", name: params.name });
  return SessionFile.createSyncing({
    dir,
    cwd: params.cwd,
    initialEntries,
    // a thread with its own worktree is written at once: the file is what records the
    // worktree, so one never used can still be found and its worktree removed
    ...(initial.worktree ? { worktree: initial.worktree } : { writeWhen: countsAsUse }),
  });
}

/**
 * A fork of `source`'s current branch, named `<source title> (fork)` unless a name is
 * given, its fsyncs still running when this returns (`durable`).
 */
export async function createForkSession(
  source: SessionFile,
  dir: string,
  name?: string,
  leafId?: string | null,
): Promise<SyncingSession> {
  const sourceTitle = source.name ?? firstUserText(source.entries) ?? "Untitled";
  // the branch ending at `leafId` (an extension's `ctx.fork`), else the current one
  const { entries } = remapBranch(leafId === undefined ? source.branch() : source.branch(leafId));
  entries.push({ type: "session_info", name: name ?? `${sourceTitle} (fork)` });
  return SessionFile.createSyncing({
    dir,
    cwd: source.header.cwd,
    parentSession: source.path,
    forkedFromId: source.id,
    initialEntries: entries,
    // a fork works where its source works: in its worktree, if it has one
    ...(isSessionWorktree(source.header.worktree) ? { worktree: source.header.worktree } : {}),
  });
}
