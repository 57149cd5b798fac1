/**
 * One worktree-changing git command at a time per repository: `git worktree add` reads
 * every worktree's metadata and fails on one that another `add` is half-way through
 * writing ("failed to read .git/worktrees/<x>/commondir"), so adds, removes and prunes of
 * one repository (keyed by its common dir or main checkout) queue behind each other.
 */
const tails = new Map<string, Promise<unknown>>();

export async function withRepositoryLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = tails.get(key) ?? Promise.resolve();
  const run = before.then(work, work);
  const tail = run.catch(() => {});
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    if (tails.get(key) === tail) tails.delete(key);
  }
}
