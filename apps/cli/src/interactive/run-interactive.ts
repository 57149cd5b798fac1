/**
 * Starts the interactive UI: the first frame goes up at once, while the server host
 * loads and the thread opens behind it; then the optional first message is sent.
 */
import type { AgentOptions } from "../args.ts";
import { openThread } from "../open-thread.ts";
import type { TerminalClient } from "../terminal-client.ts";
import { BUILTIN_COMMANDS, runBuiltinCommand } from "./builtin-commands.ts";
import { InteractiveApp } from "./interactive-app.ts";
import { sessionChoices } from "./pickers.ts";
import { Screen } from "./ui/screen.ts";
import { style } from "./ui/style.ts";

/** Runs the UI until the user quits; resolves with the exit code. */
export async function runInteractive(
  connecting: Promise<TerminalClient>,
  cwd: string,
  options: AgentOptions,
): Promise<number> {
  const screen = new Screen();
  const connection = await connecting;
  const app = new InteractiveApp(screen, connection.client, cwd, BUILTIN_COMMANDS, runBuiltinCommand);
  screen.start();
  try {
    let picked: string | undefined;
    if (options.resume) {
      const choices = await sessionChoices(connection.client, cwd);
      if (choices.length > 0) {
        const answer = await app.ask("Resume which session? (type to search, Esc for a new one)", choices, {
          searchable: true,
        });
        if (!("cancelled" in answer)) picked = answer.value;
      }
    }
    const opened = await openThread(connection.client, cwd, options, picked);
    for (const warning of opened.warnings) app.view.note(style.warning(`! ${warning.message}`));
    await app.session.open(opened.thread, opened.resumed);
    if (options.prompt !== undefined) void app.submit(options.prompt, "enter");
  } catch (error) {
    app.view.note(style.error(`✗ ${error instanceof Error ? error.message : String(error)}`));
  }
  const code = await app.exited;
  screen.stop();
  await connection.close();
  return code;
}
