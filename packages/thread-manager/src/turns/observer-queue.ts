/**
 * pi's observer events (`turn_start`/`turn_end`, `message_start`/`message_update`,
 * `tool_execution_*`) reach extensions in the order the agent emitted them, one after
 * another, and never hold the agent up: a slow handler delays the handlers after it, not
 * the model stream or the tools. Each dispatch keeps the turn's admission until it
 * finished (`deferredHooks`), so the turn settles only after its observers.
 */
import { callHook } from "../extensions/extension-hooks.ts";
import type { Warning } from "../shapes.ts";
import type { RunningTurn } from "../threads/thread-runtime.ts";

/** A dispatcher for one turn's observer hooks; a throwing hook becomes a warning. */
export function observerQueue(
  running: RunningTurn,
  warn: (warning: Warning) => void,
): (run: () => Promise<void>) => void {
  let tail: Promise<void> | undefined;
  return (run) => {
    const call = () => callHook(run, undefined, warn);
    // callHook never rejects, so the chain never breaks
    const next = tail === undefined ? call() : tail.then(call);
    tail = next;
    running.deferredHooks.add(next);
    void next.finally(() => {
      running.deferredHooks.delete(next);
      if (tail === next) tail = undefined;
    });
  };
}
