/**
 * What extension APIs do to turns (`sendUserMessage`, `abort`, `compact`, the context
 * size), through the same turn operations the protocol uses, as the thread's most recent
 * subscriber.
 */
import type { Caller } from "../api.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { CompactionHooks } from "../turns/environment.ts";
import type { LazyTurns } from "../turns/lazy-turns.ts";
import { abortTurns } from "../turns/turn-abort.ts";
import type { ExtensionTurnActions } from "./extension-port.ts";

/** Builds the actions. */
export function extensionTurnActions(turns: LazyTurns, compaction: CompactionHooks): ExtensionTurnActions {
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
  };
}
