/**
 * The terminal's worktree commands: `/diff` (the last turn's changes, or the thread's
 * work against its base or the remote), `/merge` (the worktree into the branch it was
 * made from). What happens to a worktree `-w` made when the agent exits is
 * worktree-exit.ts.
 */
import { isAppServerError, type ThreadDiffResult } from "@knightcode/app-server-protocol";
import type { InteractiveApp } from "./interactive-app.ts";
import { style } from "./ui/style.ts";

/** A unified diff with added and removed lines coloured; file headers bold. */
export function colourDiff(diff: string): string {
  return diff
    .split("\n")
    .map((line) => {
      if (line.startsWith("diff --git ")) return style.bold(line);
      if (line.startsWith("+++") || line.startsWith("---")) return style.muted(line);
      if (line.startsWith("+")) return style.added(line);
      if (line.startsWith("-")) return style.removed(line);
      if (line.startsWith("@@")) return style.accent(line);
      return line;
    })
    .join("\n");
}

function summary(result: ThreadDiffResult): string {
  const lines = result.files.map(
    (f) => `  ${f.kind.padEnd(6)} ${f.path} ${f.binary ? "(binary)" : `+${f.additions} -${f.deletions}`}`,
  );
  return `${style.bold(`${result.files.length} file${result.files.length === 1 ? "" : "s"} changed`)}\n${lines.join("\n")}`;
}

/** `/diff [base|remote]`: without an argument the last turn's changes (the base outside one). */
export async function showDiff(app: InteractiveApp, args: string): Promise<void> {
  const threadId = app.session.threadId;
  if (threadId === undefined) return;
  const asked = args.trim();
  if (asked !== "" && asked !== "base" && asked !== "remote" && asked !== "turn") {
    app.view.note(style.warning("Usage: /diff [turn|base|remote]"));
    return;
  }
  let against: "turnStart" | "base" | "remote" = asked === "base" || asked === "remote" ? asked : "turnStart";
  let result: ThreadDiffResult;
  try {
    result = await app.client.request("thread/diff", { threadId, against });
  } catch (error) {
    const reason = (error as { data?: { reason?: string } }).data?.reason;
    if (reason !== "noTurn" || asked === "turn") throw error;
    against = "base";
    result = await app.client.request("thread/diff", { threadId, against });
  }
  const what = against === "turnStart" ? "the last turn" : against === "base" ? "the base" : "the remote";
  if (result.files.length === 0) {
    app.view.note(style.muted(`No changes against ${what}.`));
    return;
  }
  const cut = result.truncated ? `\n${style.warning("! The diff was cut; every file is listed above.")}` : "";
  app.view.note(
    `${style.muted(`Changes against ${what}:`)}\n${summary(result)}\n\n${colourDiff(result.diff)}${cut}`,
  );
}

const STRATEGIES = ["squash", "merge", "rebase"] as const;

/** `/merge [squash|merge|rebase] [message]`: asks for the strategy when none is given. */
export async function mergeWorktree(app: InteractiveApp, args: string): Promise<void> {
  const threadId = app.session.threadId;
  const thread = app.session.thread;
  if (threadId === undefined) return;
  if (thread?.worktree === undefined) {
    app.view.note(style.warning("This session is not in a worktree (start one with knightcode -w)."));
    return;
  }
  const [first = "", ...rest] = args.trim().split(/\s+/);
  let strategy = STRATEGIES.find((s) => s === first);
  const message = (strategy === undefined ? args.trim() : rest.join(" ")).trim();
  if (strategy === undefined) {
    const answer = await app.ask(
      `Merge ${thread.worktree.branch} into ${thread.worktree.sourceBranch ?? "?"} how?`,
      [
        { label: "squash: one commit", value: "squash" },
        { label: "merge: a merge commit", value: "merge" },
        { label: "rebase: replay the commits", value: "rebase" },
      ],
    );
    if ("cancelled" in answer) return;
    strategy = answer.value as (typeof STRATEGIES)[number];
  }
  try {
    const merged = await app.client.request("worktree/merge", {
      threadId,
      strategy,
      ...(message === "" ? {} : { message }),
    });
    app.view.note(
      style.success(
        `Merged ${thread.worktree.branch} into ${merged.target} (${strategy}): ${merged.commits} commit${merged.commits === 1 ? "" : "s"}, now at ${merged.commit.slice(0, 10)}`,
      ),
    );
  } catch (error) {
    if (isAppServerError(error, "worktreeConflict")) {
      const files = (error.data as { files?: string[] } | undefined)?.files ?? [];
      app.view.note(
        style.error(`✗ Not merged: it would conflict in ${files.join(", ")}. Nothing was changed.`),
      );
      return;
    }
    throw error;
  }
}
