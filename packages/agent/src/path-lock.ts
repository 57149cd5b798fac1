/**
 * Serializes work per key (a file path): work registered for a key starts only after all
 * work registered earlier for any of its keys has settled. Registration order is the order
 * of execution, so same-file edits from one tool batch apply in call order.
 */
export class PathLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `work` after earlier work on any of `keys`; with no keys it starts at once. */
  run<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    const unique = [...new Set(keys)];
    const before = unique.map((key) => this.#tails.get(key)).filter((p) => p !== undefined);
    const result = (before.length === 0 ? work() : Promise.allSettled(before).then(work)) as Promise<T>;
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    for (const key of unique) this.#tails.set(key, settled);
    // Forget finished keys so a long session does not accumulate every path it touched.
    settled.then(() => {
      for (const key of unique) if (this.#tails.get(key) === settled) this.#tails.delete(key);
    });
    return result;
  }
}
