/** A publish/subscribe bus; each thread's extensions share one, no other thread sees it. */
import type { EventBus } from "./api-types.ts";

export function createEventBus(): EventBus {
  const channels = new Map<string, Set<(data: unknown) => void>>();
  return {
    on(channel, handler) {
      const set = channels.get(channel) ?? new Set();
      set.add(handler);
      channels.set(channel, set);
      return () => set.delete(handler);
    },
    emit(channel, data) {
      for (const handler of [...(channels.get(channel) ?? [])]) {
        try {
          handler(data);
        } catch {
          // one listener's error never stops the others
        }
      }
    },
  };
}
