/** `/undo`: puts back the files the last turn changed, from the checkpoint taken before it. */
import type { UnrestoredPath } from "./checkpoints.ts";
import type { InteractiveApp } from "./interactive-app.ts";
import { style } from "./ui/style.ts";

/** Restores the newest checkpoint and says what it did. */
export async function undoLastTurn(app: InteractiveApp): Promise<void> {
  if (app.session.runningTurnId !== undefined) {
    app.view.note(style.warning("A turn is running; interrupt it (Esc) before /undo."));
    return;
  }
  if (!(await app.checkpoints.available())) {
    app.view.note(
      style.warning(
        app.checkpoints.disabledBecause ??
          "/undo needs a git repository: outside one no checkpoints are taken, so nothing can be restored. Run `git init` to enable it.",
      ),
    );
    return;
  }
  const report = await app.checkpoints.undo();
  if (report === undefined) {
    app.view.note(style.muted("Nothing to undo: no turn has run since knightcode started."));
    return;
  }
  const { restored, notRestored } = report;
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

const REASONS: Record<UnrestoredPath["reason"], string> = {
  outsideRepository: "outside the git repository",
  notCheckpointed: "ignored by git and not in the checkpoint: inside an ignored folder, or too large",
};
