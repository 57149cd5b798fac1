/**
 * `thread/undo`: restores the files the thread's last turn changed from the checkpoint
 * taken before it. It takes the thread's admission like a turn, so it never runs while
 * a turn (or a `!` command) could be writing the same files.
 */
import { AppServerError, type ThreadUndoResult } from "@knightcode/app-server-protocol";
import type { ThreadPort } from "../thread-port.ts";
import { refuse } from "../worktrees/worktree-errors.ts";

/** Undoes the newest checkpointed turn of a loaded thread. */
export async function undoLastTurn(runtime: ThreadPort): Promise<ThreadUndoResult> {
  runtime.admit("undo");
  try {
    const checkpoints = runtime.checkpoints;
    if (!(await checkpoints.available())) {
      // the same refusal as thread/diff's outside a repository
      throw refuse(
        "notGitRepository",
        `${runtime.cwd} is not in a git repository: no checkpoints are taken there, so nothing can be restored (run \`git init\` to enable undo)`,
      );
    }
    const report = await checkpoints.undo();
    if (report === undefined) {
      const undone = checkpoints.undone;
      throw new AppServerError(
        "nothingToUndo",
        undone === 0
          ? `No turn of thread ${runtime.id} has a checkpoint on this server`
          : `The ${undone === 1 ? "turn" : `${undone} turns`} checkpointed on this server ${undone === 1 ? "was" : "were"} undone already`,
        { undone },
      );
    }
    return { ...report, remaining: checkpoints.depth };
  } finally {
    if (!runtime.closed) runtime.release();
  }
}
