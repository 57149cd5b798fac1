/**
 * The one way the worktree code runs git: through simple-git, with `GIT_OPTIONAL_LOCKS=0`
 * (a status or diff the server runs while the user works must never take the index lock
 * from them) and a timeout, so a hung git (a credential prompt, a huge repository on a
 * slow disk) fails the request instead of holding it forever.
 */
import type { SimpleGit } from "simple-git";

/** How long one git command may take before it is killed. */
export const GIT_TIMEOUT_MS = 60_000;

/** Variables git needs; the rest of the server's environment does not reach it. */
const PASSED_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "XDG_CONFIG_HOME", "USER"];

let factory: Promise<typeof import("simple-git")> | undefined;

/** simple-git loads with the first git call, not with the server. */
function loadSimpleGit(): Promise<typeof import("simple-git")> {
  factory ??= import("simple-git");
  return factory;
}

/** Extra variables for one call: a private index, an identity for commits the server makes. */
export type GitExtraEnv = Partial<
  Record<
    | "GIT_INDEX_FILE"
    | "GIT_AUTHOR_NAME"
    | "GIT_AUTHOR_EMAIL"
    | "GIT_AUTHOR_DATE"
    | "GIT_COMMITTER_NAME"
    | "GIT_COMMITTER_EMAIL",
    string
  >
>;

function gitEnv(extra: GitExtraEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of PASSED_ENV) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  env.GIT_OPTIONAL_LOCKS = "0";
  env.GIT_TERMINAL_PROMPT = "0";
  return { ...env, ...extra };
}

/**
 * git exited non-zero. simple-git by default only fails when git wrote to stderr, so a
 * quiet failure (`merge-base --is-ancestor`, `rev-parse --verify --quiet`, a conflicting
 * `merge-tree`) would read as success; every non-zero exit is an error carrying its exit
 * code and stdout instead (a simple-git `GitError`, which simple-git passes on as is).
 */
export interface GitExit {
  exitCode: number;
  stdout: string;
}

/** The exit code and stdout of a failed git call, or undefined for any other error. */
export function gitExitOf(error: unknown): GitExit | undefined {
  const exit = (error as { gitExit?: GitExit } | null)?.gitExit;
  return exit && typeof exit.exitCode === "number" ? exit : undefined;
}

/** A git client rooted at `dir`. */
export async function gitAt(dir: string, extra: GitExtraEnv = {}): Promise<SimpleGit> {
  const { simpleGit, GitError } = await loadSimpleGit();
  const env = gitEnv(extra);
  return simpleGit({
    baseDir: dir,
    timeout: { block: GIT_TIMEOUT_MS },
    allowEnvironment: Object.keys(env).filter((key) => key.startsWith("GIT_")),
    errors: (error, result) => {
      if (error instanceof Error) return error;
      if (result.exitCode === 0) return undefined;
      const stderr = Buffer.concat(result.stdErr).toString("utf8").trim();
      const gitExit: GitExit = {
        exitCode: result.exitCode,
        stdout: Buffer.concat(result.stdOut).toString("utf8"),
      };
      return Object.assign(new GitError(undefined, stderr || `git exited with ${result.exitCode}`), {
        gitExit,
      });
    },
  }).env(env);
}

/** `git <args>` in `dir`, its stdout. */
export async function git(dir: string, args: string[], extra: GitExtraEnv = {}): Promise<string> {
  return (await gitAt(dir, extra)).raw(args);
}

/** `git <args>` in `dir`, trimmed stdout, or undefined when git fails (an unknown ref, no upstream). */
export async function gitMaybe(
  dir: string,
  args: string[],
  extra: GitExtraEnv = {},
): Promise<string | undefined> {
  try {
    return (await git(dir, args, extra)).trim();
  } catch {
    return undefined;
  }
}
