/** Event-driven waits for tests: no polling, every wait has a timeout with a clear message. */

/** How long a wait may take before it fails the test. */
export const WAIT_MS = 10_000;

/** Resolves with `promise`, or rejects with "timed out waiting for <what>" after `timeoutMs`. */
export async function withTimeout<T>(promise: Promise<T>, what: string, timeoutMs = WAIT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Something that changes: whoever changes it calls `notify()`, and `until` re-checks its
 * condition at once and then on each notification, never on a clock.
 */
export class Changes {
  private readonly waiters = new Set<() => void>();

  /** Wakes every waiter to re-check its condition. */
  notify(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves once `check()` holds; rejects with "timed out waiting for <what>" after `timeoutMs`. */
  until(check: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
    if (check()) return Promise.resolve();
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    const wake = (): void => {
      let done: boolean;
      try {
        done = check();
      } catch (error) {
        this.waiters.delete(wake);
        reject(error);
        return;
      }
      if (done) {
        this.waiters.delete(wake);
        resolve();
      }
    };
    this.waiters.add(wake);
    return withTimeout(promise, what, timeoutMs).finally(() => this.waiters.delete(wake));
  }
}
