/**
 * Every extension call is bounded: a handler that never settles is treated as "no answer"
 * after the thread's hook timeout, so no hook can hold a thread (or shutdown) forever.
 */

/** Default of the `extensionHookTimeoutMs` setting. */
export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

/** How one bounded call ended. */
export type BoundedOutcome<T> =
  | { kind: "value"; value: T }
  | { kind: "error"; error: unknown }
  | { kind: "timeout" };

/**
 * Runs `run` and settles after at most `timeoutMs`; the call itself is left to finish. A
 * handler that answers synchronously (most observers) settles without a timer: that is
 * what keeps a per-delta event cheap.
 */
export async function boundedCall<T>(
  run: () => T | Promise<T>,
  timeoutMs: number,
): Promise<BoundedOutcome<T>> {
  let answer: T | Promise<T>;
  try {
    answer = run();
  } catch (error) {
    return { kind: "error", error };
  }
  if (!isThenable(answer)) return { kind: "value", value: answer };
  const pending = answer;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<BoundedOutcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), timeoutMs);
  });
  const call = (async (): Promise<BoundedOutcome<T>> => {
    try {
      return { kind: "value", value: await pending };
    } catch (error) {
      return { kind: "error", error };
    }
  })();
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a handler answered with a promise (anything with a `then` method). */
export function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** The `extensionHookTimeoutMs` setting, or the default when absent or not a positive number. */
export function hookTimeoutMs(settings: Record<string, unknown> | undefined): number {
  const value = settings?.extensionHookTimeoutMs;
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : DEFAULT_HOOK_TIMEOUT_MS;
}
