/**
 * `!cmd` and `!!cmd`: the user's own command in the thread's cwd through
 * `thread/shell/run` (the thread's bash tool on the server). Output shows live from
 * `thread/shell/output`; `!cmd` goes into the model's context, `!!cmd` stays out of it.
 */
import type { AppServerClient } from "@knightcode/app-server-protocol";
import type { ConversationView } from "./conversation-view.ts";
import { style } from "./ui/style.ts";

let nextShellId = 0;

/** What a `!cmd` needs of the app: the server to run it and the view to show its output. */
export interface ShellHost {
  readonly client: AppServerClient;
  readonly view: Pick<ConversationView, "liveText">;
}

/** Runs `text` (with its `!`/`!!` prefix) and shows the output as it arrives. */
export async function runShell(app: ShellHost, threadId: string, text: string): Promise<void> {
  const excludeFromContext = text.startsWith("!!");
  const command = text.slice(excludeFromContext ? 2 : 1).trim();
  nextShellId += 1;
  const shellId = `tui-${process.pid}-${nextShellId}`;
  const title = `${style.accent("$")} ${style.bold(command)}${excludeFromContext ? style.muted("  (not in context)") : ""}`;
  const block = app.view.liveText(title);
  const off = app.client.onNotification("thread/shell/output", (params) => {
    if (params.shellId === shellId) block.set(`${title}\n${style.muted(params.output)}`);
  });
  try {
    const result = await app.client.request("thread/shell/run", {
      threadId,
      command,
      excludeFromContext,
      shellId,
    });
    const status =
      result.exitCode === 0
        ? ""
        : `\n${style.warning(result.cancelled ? "cancelled" : `exit code ${result.exitCode ?? "signal"}`)}`;
    block.set(`${title}\n${style.muted(result.output)}${status}`);
  } finally {
    off();
  }
}
