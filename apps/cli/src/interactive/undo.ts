/**
 * `/undo`: asks the server (`thread/undo`) to put back the files the last turn changed,
 * from the checkpoint it took before that turn, and says what it did. The server takes
 * the checkpoints where the files are, so `/undo` works the same in-process and with
 * `--remote`.
 */
import {
  isAppServerError,
  type NothingToUndoData,
  type ThreadUndoResult,
  type UnrestoredPath,
} from "@knightcode/app-server-protocol";
import type { InteractiveApp } from "./interactive-app.ts";
import { style } from "./ui/style.ts";

/** Restores the newest checkpoint and says what it did. */
export async function undoLastTurn(app: InteractiveApp): Promise<void> {
  const threadId = app.session.threadId;
  if (threadId === undefined) return;
  if (app.session.runningTurnId !== undefined) {
    app.view.note(style.warning("A turn is running; interrupt it (Esc) before /undo."));
    return;
  }
  let result: ThreadUndoResult;
  try {
    result = await app.client.request("thread/undo", { threadId });
  } catch (error) {
    if (isAppServerError(error, "invalidParams") && isRefusal(error.data, "notGitRepository")) {
      app.view.note(
        style.warning(
          `/undo needs a git repository: outside one no checkpoints are taken, so nothing can be restored. Run \`git init\`${app.remote ? " on the server" : ""} to enable it.`,
        ),
      );
      return;
    }
    if (isAppServerError(error, "nothingToUndo")) {
      app.view.note(style.muted(nothingToUndo((error.data as NothingToUndoData).undone, app.remote)));
      return;
    }
    throw error;
  }
  const { restored, notRestored } = result;
  if (restored.length === 0 && notRestored.length === 0) {
    app.view.note(style.muted("The last turn changed no files."));
    return;
  }
  if (restored.length > 0) {
    const lines = restored.map((r) => `  ${r.action === "removed" ? "removed " : "restored"} ${r.path}`);
    app.view.note(
      `${style.bold(`Undid the last turn's file changes (${restored.length}):`)}\n${lines.join("\n")}`,
    );
  }
  if (notRestored.length > 0) {
    const lines = notRestored.map((n) => `  ${n.path} (${REASONS[n.reason]})`);
    app.view.note(
      style.warning(
        `! Not restored, still as the turn left them (${notRestored.length}):\n${lines.join("\n")}`,
      ),
    );
  }
}

function isRefusal(data: unknown, reason: string): boolean {
  return (data as { reason?: unknown } | undefined)?.reason === reason;
}

/** Why nothing is left: no checkpointed turn, or every one was undone (checkpoints live as long as the server). */
function nothingToUndo(undone: number, remote: boolean): string {
  const since = remote ? "since the server started" : "since knightcode started";
  if (undone === 0) return `Nothing to undo: no turn has run ${since}.`;
  const turns = undone === 1 ? "turn" : `${undone} turns`;
  return `Nothing more to undo: the ${turns} ${since} ${undone === 1 ? "was" : "were"} undone already.`;
}

const REASONS: Record<UnrestoredPath["reason"], string> = {
  outsideRepository: "outside the git repository",
  notCheckpointed: "ignored by git and not in the checkpoint: inside an ignored folder, or too large",
};
