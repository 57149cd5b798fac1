/**
 * The terminal's own slash commands. `/compact`, `/new`, `/fork` and `/name` are the
 * server's (they go out as `turn/start` text and come back as items or
 * `thread/replaced`); everything unknown goes to the server too (extension commands,
 * prompt templates, `skill:<name>`).
 */
import type { BuiltinCommand } from "./completion.ts";
import { homeRelative } from "./header.ts";
import type { CommandRunner, InteractiveApp } from "./interactive-app.ts";
import { modelChoices, sessionChoices } from "./pickers.ts";
import { showSession, showUsage } from "./session-info.ts";
import { openSettings } from "./settings-command.ts";
import { style } from "./ui/style.ts";
import { showWarning } from "./warnings.ts";

/** Names and descriptions, for `/` completion. */
export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  { name: "compact", description: "Summarize the conversation so far (optional instructions)" },
  { name: "new", description: "Start a new session" },
  { name: "fork", description: "Continue in a copy of this session" },
  { name: "resume", description: "Pick a session of this project to resume" },
  { name: "name", description: "Name this session" },
  { name: "session", description: "Show the session file, ID, counts and usage" },
  { name: "model", description: "Pick the model" },
  { name: "login", description: "Save an API key for a provider (hidden input, stored in auth.json)" },
  { name: "settings", description: "Change common settings" },
  { name: "reload", description: "Reload the extensions (shut down, then load again from their sources)" },
  { name: "usage", description: "Show token usage and cost" },
  { name: "export", description: "Write the session as one HTML file ([file.html] [--include-system])" },
  { name: "mcp", description: "List this thread's MCP servers, their state and tools" },
  { name: "tree", description: "Continue from before an earlier message (any branch)" },
  { name: "undo", description: "Restore the files the last turn changed" },
  { name: "diff", description: "Show what the last turn changed ([base|remote]: the thread's work)" },
  { name: "merge", description: "Merge this worktree into its branch ([squash|merge|rebase] [message])" },
  { name: "help", description: "List the keys and every command" },
  { name: "quit", description: "Exit knightcode" },
];

/** Switches the view to another thread (leaving the current one). */
export async function switchThread(app: InteractiveApp, threadId: string): Promise<void> {
  const previous = app.session.threadId;
  const resumed = await app.client.request("thread/resume", { threadId });
  if (previous !== undefined && previous !== threadId) {
    await app.client.request("thread/unsubscribe", { threadId: previous });
  }
  await app.session.open(resumed.thread, resumed);
  for (const warning of resumed.warnings) showWarning(app.view, warning);
}

/** Runs a built-in; false when `name` is not one the terminal handles itself. */
export const runBuiltinCommand: CommandRunner = async (app, name, args) => {
  const threadId = app.session.threadId;
  switch (name) {
    case "quit":
    case "exit":
      app.quit(0);
      return true;
    case "resume": {
      const choices = await sessionChoices(app.client, app.cwd, threadId);
      if (choices.length === 0) {
        app.view.note(style.muted("No other session in this project."));
        return true;
      }
      const answer = await app.ask(
        `Resume which session? (${homeRelative(app.cwd)}; type to search, Esc to cancel)`,
        choices,
        { searchable: true },
      );
      if (!("cancelled" in answer)) await switchThread(app, answer.value);
      return true;
    }
    case "model": {
      if (threadId === undefined) return true;
      const model = app.session.thread?.model;
      const current = model === undefined ? undefined : `${model.provider}/${model.id}`;
      const { choices, models } = await modelChoices(app.client, threadId, current);
      const answer = await app.ask(
        `Which model? Now ${current ?? "none"} (●; type to search, Esc to cancel)`,
        choices,
        { searchable: true, ...(current === undefined ? {} : { selected: current }) },
      );
      if ("cancelled" in answer) return true;
      const picked = models.find((m) => `${m.provider}/${m.id}` === answer.value);
      const slash = answer.value.indexOf("/");
      const { thread } = await app.client.request("thread/settings/update", {
        threadId,
        model: { provider: answer.value.slice(0, slash), id: answer.value.slice(slash + 1) },
      });
      app.session.setThread(thread);
      app.view.note(style.muted(`Model: ${answer.value}`));
      if (picked !== undefined && !picked.available) {
        const { credentialsHint } = await import("../credentials.ts");
        app.view.note(
          style.warning(
            `! ${picked.provider} has no credentials yet. ${await credentialsHint(app.client, picked.provider)}`,
          ),
        );
      }
      return true;
    }
    case "export": {
      const { exportSession } = await import("./export-slash-command.ts");
      await exportSession(app, args);
      return true;
    }
    case "login": {
      const { login } = await import("./login-slash-command.ts");
      await login(app, args);
      return true;
    }
    case "session":
      if (threadId !== undefined) await showSession(app, threadId);
      return true;
    case "usage":
      showUsage(app);
      return true;
    case "help":
      await app.showHelp();
      return true;
    case "mcp": {
      if (threadId === undefined) return true;
      const { showMcpServers } = await import("./mcp-command.ts");
      await showMcpServers(app, threadId);
      return true;
    }
    case "settings":
      await openSettings(app);
      return true;
    case "reload":
      if (threadId === undefined) return true;
      // the server's built-in: session_shutdown, a fresh load, session_start (reason
      // reload) on the loaded thread; load problems come back as warning notifications
      await app.client.request("turn/start", { threadId, text: "/reload" });
      app.view.note(style.muted("Reloaded the extensions."));
      return true;
    case "undo": {
      const { undoLastTurn } = await import("./undo.ts");
      await undoLastTurn(app);
      return true;
    }
    case "diff": {
      const { showDiff } = await import("./worktree-commands.ts");
      await showDiff(app, args);
      return true;
    }
    case "merge": {
      const { mergeWorktree } = await import("./worktree-commands.ts");
      await mergeWorktree(app, args);
      return true;
    }
    case "tree": {
      const { openTree } = await import("./tree-command.ts");
      await openTree(app, args);
      return true;
    }
    default:
      return false;
  }
};
