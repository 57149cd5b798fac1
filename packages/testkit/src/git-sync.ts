/**
 * Synchronous git for tests that set up a repository or check what git itself says: a
 * fixed test identity for commits, no system config, and stderr in the error.
 */
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
};

/** `git <args>` in `dir`; its stdout, or a thrown error with stderr. */
export function gitSync(dir: string, ...args: string[]): string {
  const run = Bun.spawnSync(["git", ...args], { cwd: dir, env: GIT_ENV });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
  return run.stdout.toString();
}
