/**
 * What extension APIs do to turns (`sendUserMessage`, `abort`, `compact`, the context
 * size), through the same turn operations the protocol uses, as the thread's most recent
 * subscriber; and `ctx.newSession()`/`ctx.fork()`, through the `/new` and `/fork` path, as
 * the client whose command called them.
 */
import { AppServerError } from "@knightcode/app-server-protocol";
import type { Caller } from "../api.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { ThreadCreation } from "../threads/thread-creation.ts";
import { type Replacement, replaceThread } from "../threads/thread-replace.ts";
import type { CompactionHooks } from "../turns/environment.ts";
import type { LazyTurns } from "../turns/lazy-turns.ts";
import { abortTurns } from "../turns/turn-abort.ts";
import type { ExtensionTurnActions } from "./extension-port.ts";
import { isExtensionCancelled } from "./session-move-hooks.ts";

/** Builds the actions. */
export function extensionTurnActions(
  turns: LazyTurns,
  compaction: CompactionHooks,
  creation: () => ThreadCreation,
): ExtensionTurnActions {
  const callerOf = (thread: ThreadPort): Caller => {
    const connectionId = thread.subscribers.at(-1);
    if (connectionId === undefined) throw new Error("No client is subscribed to this thread");
    return { connectionId, clientKind: thread.clientMode };
  };
  return {
    queueInput: async (thread, text, images) => {
      const params = {
        threadId: thread.id,
        text,
        ...(images.length > 0
          ? { images: images.map((i) => ({ mimeType: i.mimeType as "image/png", data: i.data })) }
          : {}),
      };
      const caller = callerOf(thread);
      await turns.use((ops) => ops.queueAdd(params, caller));
    },
    steer: (thread, text, images) => thread.running?.steer(text, images),
    interrupt: (thread) => abortTurns(thread),
    compact: async (thread, instructions) => {
      const params = { threadId: thread.id, text: instructions ? `/compact ${instructions}` : "/compact" };
      const caller = callerOf(thread);
      await turns.use((ops) => ops.start(params, caller));
    },
    contextTokens: (thread) => compaction.contextTokens(thread),
    replaceSession: async (thread, request, setup) => {
      // a command holds its thread's admission while it runs; a turn or hook does not
      const pending = thread.pendingStart;
      if (!pending || thread.running)
        throw new Error("newSession() and fork() work only from a command handler");
      if (pending.replacedBy) throw new Error("This command has already replaced its session");
      const how: Replacement =
        request.kind === "new"
          ? { kind: "new" }
          : { kind: "fork", entryId: request.entryId, position: request.position };
      try {
        const fresh = await replaceThread(thread, pending.caller ?? callerOf(thread), how, creation(), setup);
        pending.replacedBy = { reason: request.kind, threadId: fresh.id, path: fresh.session.path };
        return fresh;
      } catch (error) {
        if (error instanceof AppServerError && isExtensionCancelled(error)) return undefined;
        throw error;
      }
    },
  };
}
