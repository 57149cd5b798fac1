/**
 * Starts the interactive UI: the first frame goes up at once, while the server host
 * loads and the thread opens behind it; then the optional first message is sent.
 */

import type { Thread } from "@knightcode/app-server-protocol";
import type { LiveComponentSurface } from "@knightcode/extensions";
import { type AgentOptions, usageLine } from "../args.ts";
import type { TerminalClient } from "../terminal-client.ts";
import { TerminalComponents } from "./extension-components.ts";
import { Footer } from "./footer.ts";
import { BACKGROUND_QUERY_TIMEOUT_MS, chooseTheme } from "./theme-choice.ts";
import { Screen } from "./ui/screen.ts";
import { style, terminalColorLevel } from "./ui/style.ts";

/** Runs the UI until the user quits; resolves with the exit code. */
export async function runInteractive(
  connect: (components?: LiveComponentSurface) => Promise<TerminalClient>,
  cwd: string,
  options: AgentOptions,
): Promise<number> {
  // the first frame (editor and footer) goes up before the server host starts loading
  const screen = new Screen();
  const editor = screen.createEditor();
  const footer = new Footer(cwd);
  screen.setEditor(editor);
  screen.setFooter(footer);
  screen.focus(editor);
  // Enter before the session is open keeps the text for when it is
  editor.onSubmit = (text) => editor.setText(text);
  await screen.start();
  // asked after the first frame, so it never delays it; the answer is awaited only for `auto`
  const background =
    terminalColorLevel() === "none"
      ? Promise.resolve(undefined)
      : screen.queryBackground(BACKGROUND_QUERY_TIMEOUT_MS);
  // extensions' pi-tui components are drawn here, handed over by the in-process server
  const components = new TerminalComponents(screen);
  const [
    connection,
    { InteractiveApp },
    { BUILTIN_COMMANDS, runBuiltinCommand },
    { sessionChoices },
    { openThread },
    { settleFlagsOf },
  ] = await Promise.all([
    connect(components),
    import("./interactive-app.ts"),
    import("./builtin-commands.ts"),
    import("./pickers.ts"),
    import("../open-thread.ts"),
    import("../extension-flags.ts"),
  ]);
  const app = new InteractiveApp(screen, connection.client, cwd, BUILTIN_COMMANDS, runBuiltinCommand, {
    editor,
    footer,
    ...(options.remote === undefined ? {} : { remote: true }),
  });
  void chooseTheme(
    screen,
    connection.client,
    background,
    (message) => app.view.note(style.warning(`! ${message}`)),
    cwd,
  );
  components.attach({
    editor: app.editor,
    footer: app.footer,
    view: app.view,
    threadId: () => app.session.threadId,
  });
  if (connection.connection !== undefined) {
    const { showConnectionChanges } = await import("./connection-status.ts");
    showConnectionChanges(app, connection.connection);
  }
  /** The worktree thread this run made: on exit it goes if unchanged, else stays named. */
  let made: Thread | undefined;
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
    const settled = await settleFlagsOf(connection.client, opened, options);
    if ("error" in settled) {
      // a bad flag is a usage error, as it is before the UI starts: one line on stderr, exit 2
      screen.stop();
      await connection.close();
      process.stderr.write(usageLine(settled.error));
      return 2;
    }
    for (const warning of opened.warnings) app.view.note(style.warning(`! ${warning.message}`));
    if (opened.created && opened.thread.worktree !== undefined) made = opened.thread;
    await app.session.open(opened.thread, opened.resumed);
    if (settled.prompt !== undefined) void app.submit(settled.prompt, "enter");
  } catch (error) {
    app.view.note(style.error(`✗ ${error instanceof Error ? error.message : String(error)}`));
  }
  const code = await app.exited;
  screen.stop();
  if (made !== undefined) {
    const { settleWorktreeOnExit } = await import("./worktree-commands.ts");
    process.stdout.write(await settleWorktreeOnExit(connection.client, made));
  }
  await connection.close();
  return code;
}
