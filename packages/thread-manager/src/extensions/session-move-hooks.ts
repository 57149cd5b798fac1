/**
 * pi's `session_before_fork` and `session_before_switch`: before a fork (`thread/fork`,
 * `/fork`) or a session replacement (`/new`), the thread's extensions may refuse. A
 * refusal is an `invalidParams` error with `data.reason: "extensionCancelled"` naming the
 * extension, and nothing has changed: no transcript is written, no subscriber moves.
 */
import { AppServerError } from "@knightcode/app-server-protocol";
import type { ThreadPort } from "../thread-port.ts";
import { callHook } from "./extension-hooks.ts";

/** `data.reason` of the error a refused fork or switch answers with. */
export const EXTENSION_CANCELLED = "extensionCancelled";

/** Whether `error` is a guard's refusal (rather than a failure). */
export function isExtensionCancelled(error: AppServerError): boolean {
  return (error.data as { reason?: unknown } | undefined)?.reason === EXTENSION_CANCELLED;
}

function cancelled(what: string, runtime: ThreadPort, path: string): AppServerError {
  return new AppServerError(
    "invalidParams",
    `An extension cancelled the ${what} of thread ${runtime.id} (${path})`,
    {
      reason: EXTENSION_CANCELLED,
    },
  );
}

/**
 * Asks `session_before_fork`; throws when refused. `thread/fork` and `/fork` copy the whole
 * branch (`at` the leaf); an extension's `ctx.fork(entryId, {position})` names its entry.
 */
export async function askBeforeFork(
  runtime: ThreadPort,
  entryId = runtime.session.leafId ?? "",
  position: "before" | "at" = "at",
): Promise<void> {
  const hook = runtime.extensions.hooks.sessionBeforeFork;
  if (!hook) return;
  const answer = await callHook(
    () => hook({ entryId, position }),
    undefined,
    (w) => runtime.warn(w),
  );
  if (answer?.cancel) throw cancelled("fork", runtime, answer.path);
}

/** Asks `session_before_switch` before `/new` replaces the thread's session; throws when refused. */
export async function askBeforeSwitch(runtime: ThreadPort): Promise<void> {
  const hook = runtime.extensions.hooks.sessionBeforeSwitch;
  if (!hook) return;
  const answer = await callHook(
    () => hook({ reason: "new" }),
    undefined,
    (w) => runtime.warn(w),
  );
  if (answer?.cancel) throw cancelled("switch to a new session", runtime, answer.path);
}
