/**
 * Settles with `wait` (fulfilled or rejected alike), or as soon as `signal` fires; the
 * caller then checks the signal and throws its reason. Without a signal it is `wait`.
 * Used wherever a stream pauses for its consumer (backpressure) and must not outlive an
 * abort: the SSE reader and the agent's event output.
 */
export function waitOrAbort(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return wait;
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    void wait.then(done, done);
  });
}
