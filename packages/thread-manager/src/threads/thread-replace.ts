/**
 * Replacing a thread's session with a new thread: `/new`, `/fork [name]` and an
 * extension command's `ctx.newSession()` / `ctx.fork(entryId)`. The old thread's guards
 * (`session_before_switch` / `session_before_fork`) are asked first; then the new thread
 * takes the old one's place for every subscriber (`thread/replaced`).
 */

import { AppServerError } from "@knightcode/app-server-protocol";
import { isSessionWorktree } from "@knightcode/session-store";
import type { Caller } from "../api.ts";
import { askBeforeFork, askBeforeSwitch } from "../extensions/session-move-hooks.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { SessionReplacing } from "./session-replacing.ts";
import type { ThreadCreation } from "./thread-creation.ts";

/** How a session is replaced: `/new`, `/fork [name]`, or an extension's `ctx.newSession()`/`ctx.fork()`. */
export type Replacement =
  | { kind: "new" }
  | { kind: "fork"; name?: string; entryId?: string; position?: "before" | "at" };

/** The branch a fork at `entryId` copies (pi's rules): `at` keeps the entry, `before` ends at a user message's parent. */
function forkLeaf(old: ThreadPort, entryId: string, position: "before" | "at"): string | null {
  const entry = old.session.entries.find((e) => e.id === entryId);
  if (!entry) throw new AppServerError("invalidParams", `No entry ${entryId} in thread ${old.id} to fork at`);
  if (position === "at") return entry.id;
  if (entry.type !== "message" || entry.message.role !== "user") {
    throw new AppServerError("invalidParams", `A fork before entry ${entryId} needs a user message there`);
  }
  return entry.parentId;
}

/**
 * Replaces `old` (whose admission the caller holds) with a new thread: the guards first
 * (a refusal changes nothing), then the new thread, `setup` on it under its own admission,
 * and every subscriber moved there with `thread/replaced` (the requester last, so
 * approvals ask it first). The old thread then idles out.
 */
export async function replaceThread(
  old: ThreadPort,
  caller: Caller,
  how: Replacement,
  creation: ThreadCreation,
  setup?: (fresh: ThreadPort) => Promise<void>,
): Promise<ThreadPort> {
  let fresh: ThreadPort;
  const replacing: SessionReplacing = { reason: how.kind, previousSessionFile: old.session.path };
  if (how.kind === "new") {
    await askBeforeSwitch(old);
    fresh = await creation.start(
      {
        cwd: old.cwd,
        approvalMode: old.settings.approvalMode,
        thinkingLevel: old.settings.thinkingLevel,
        ...(old.model ? { model: { provider: old.model.provider, id: old.model.id } } : {}),
        // The client's MCP servers (an editor's) belong to the conversation, not one thread.
        ...(old.mcp?.clientServers ? { mcpServers: old.mcp.clientServers } : {}),
      },
      caller,
      // a new session in a worktree stays in it (its owner stays the thread that made it)
      isSessionWorktree(old.session.header.worktree) ? old.session.header.worktree : undefined,
      replacing,
    );
  } else {
    const position = how.position ?? "at";
    const leafId = how.entryId === undefined ? undefined : forkLeaf(old, how.entryId, position);
    await askBeforeFork(old, how.entryId, position);
    fresh = await creation.fork(old.session, caller, how.name, old.mcp?.clientServers, leafId, replacing);
  }
  if (setup) {
    // nothing else reaches the new thread before its setup is done
    fresh.admit("command");
    try {
      await setup(fresh);
    } finally {
      if (!fresh.closed) fresh.release();
    }
  }
  const moved = old.subscribers.filter((c) => c !== caller.connectionId);
  moved.push(caller.connectionId);
  for (const connectionId of moved) fresh.subscribe(connectionId);
  fresh.noteInitiator(caller.connectionId);
  old.toSubscribers({ method: "thread/replaced", params: { oldThreadId: old.id, thread: fresh.thread() } });
  for (const connectionId of moved) old.unsubscribe(connectionId);
  for (const warning of fresh.loadWarnings) fresh.warn(warning);
  return fresh;
}
