/** Seeded randomness for the randomized rendering tests, so a failure names a reproducible text. */

/** A deterministic generator of numbers in [0, 1) (a linear congruential one). */
export function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** One of `items`, chosen by `next`. */
export const pick = <T>(next: () => number, items: readonly T[]): T =>
  items[Math.floor(next() * items.length)]!;
