/**
 * What happens to the worktree a run made (`knightcode -w`) when it ends, interactive or
 * print mode alike: removed when it holds no change against its base, else kept and
 * its branch named, so no work is lost and no empty worktree piles up.
 */
import type { AppServerClient, Thread } from "@knightcode/app-server-protocol";

/** On exit: a worktree with nothing in it is removed, one with work is kept and named. */
export async function settleWorktreeOnExit(client: AppServerClient, thread: Thread): Promise<string> {
  const worktree = thread.worktree!;
  try {
    const base = await client.request("thread/diff", { threadId: thread.id, against: "base" });
    if (base.files.length === 0) {
      await client.request("worktree/remove", { threadId: thread.id });
      return `Removed the worktree ${worktree.path} (no changes).\n`;
    }
  } catch (error) {
    return `Kept the worktree ${worktree.path} on branch ${worktree.branch} (${(error as Error).message}).\n`;
  }
  return `Kept the worktree ${worktree.path} with its changes on branch ${worktree.branch}.\n`;
}
