/**
 * `/tree`: pick one of the session's user messages on any branch and continue from just
 * before it (`thread/tree/navigate` to its parent); the message text goes back into the
 * editor to send again or change; optionally the branch left behind is summarized into
 * the new one. The view then shows the branch now current. The tree lists only a preview
 * of each message; the editor gets the whole text, read from the branch ending at it.
 */
import type { UserMessageItem } from "@knightcode/app-server-protocol";
import type { InteractiveApp } from "./interactive-app.ts";
import { age } from "./pickers.ts";
import { style } from "./ui/style.ts";

/** Opens the picker and moves the thread's leaf. */
export async function openTree(app: InteractiveApp, _args: string): Promise<void> {
  const threadId = app.session.threadId;
  if (threadId === undefined) return;
  if (app.session.runningTurnId !== undefined) {
    app.view.note(style.warning("A turn is running; interrupt it (Esc) before /tree."));
    return;
  }
  const tree = await app.client.request("thread/tree/read", { threadId });
  const current = new Set(tree.currentBranch);
  const users = tree.entries.filter((e) => e.kind === "user");
  if (users.length === 0) {
    app.view.note(style.muted("Nothing to go back to yet."));
    return;
  }
  const answer = await app.ask(
    "Continue from before which message? (type to search, Esc to cancel; ● marks the current branch)",
    [...users].reverse().map((e) => ({
      value: e.id,
      label: `${current.has(e.id) ? "●" : "○"} ${e.preview}`,
      description: age(e.timestamp),
    })),
    { searchable: true },
  );
  if ("cancelled" in answer) return;
  const chosen = users.find((e) => e.id === answer.value);
  if (chosen === undefined) return;
  const summary = await app.ask("Summarize the branch you are leaving?", [
    { value: "no", label: "No summary" },
    { value: "yes", label: "Summarize it into the new branch" },
  ]);
  if ("cancelled" in summary) return;
  const moved = await app.client.request("thread/tree/navigate", {
    threadId,
    entryId: chosen.parentId,
    summarize: summary.value === "yes",
  });
  if (moved.cancelled === true) {
    app.view.note(style.warning("An extension cancelled the move."));
    return;
  }
  const text = await messageText(app, threadId, chosen.id);
  const resumed = await app.client.request("thread/resume", { threadId });
  await app.session.open(resumed.thread, resumed);
  app.editor.setText(text ?? chosen.preview);
  app.view.note(style.muted("Moved to an earlier point; the message is back in the editor."));
}

/**
 * The whole text of user message `entryId`: the newest user message of the branch that
 * ends at it (`thread/read` with `leafId`); undefined when the page holds none.
 */
async function messageText(
  app: InteractiveApp,
  threadId: string,
  entryId: string,
): Promise<string | undefined> {
  const page = await app.client.request("thread/read", { threadId, leafId: entryId });
  const last = page.turns.at(-1);
  if (last === undefined) return undefined;
  const turn = await app.client.resolveTurn(last);
  const users = (turn.items ?? []).filter((item): item is UserMessageItem => item.type === "userMessage");
  return users.at(-1)?.text;
}
