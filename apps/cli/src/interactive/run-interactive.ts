/**
 * Starts the interactive UI: the first frame goes up at once, while the server host
 * loads and the thread opens behind it; then the optional first message is sent. An
 * open that fails (a broken config file) leaves the terminal usable: the error is shown
 * and the next Enter tries again. SIGHUP, SIGTERM and SIGINT end the UI the way Ctrl+D
 * does, so the server shuts down in order (turns interrupted and saved, locks released).
 */
import type { AppServerClient, Thread } from "@knightcode/app-server-protocol";
import type { LiveComponentSurface } from "@knightcode/extensions";
import packageJson from "../../package.json" with { type: "json" };
import { type AgentOptions, usageLine } from "../args.ts";
import { ENDING_SIGNALS } from "../ending-signals.ts";
import type { TerminalClient } from "../terminal-client.ts";
import { TerminalComponents } from "./extension-components.ts";
import { Footer } from "./footer.ts";
import { Header, homeRelative } from "./header.ts";
import { BACKGROUND_QUERY_TIMEOUT_MS, chooseTheme } from "./theme-choice.ts";
import { Screen } from "./ui/screen.ts";
import { style, terminalColorLevel } from "./ui/style.ts";

/** Runs the UI until the user quits; resolves with the exit code. */
export async function runInteractive(
  connect: (components?: LiveComponentSurface) => Promise<TerminalClient>,
  cwd: string,
  options: AgentOptions,
): Promise<number> {
  // the first frame (header, editor and footer) goes up before the server host starts loading
  const screen = new Screen();
  const editor = screen.createEditor();
  const footer = new Footer(cwd);
  const header = new Header(packageJson.version, cwd);
  // not drawn until settings say whether it is wanted (quietStartup), so a quiet user never
  // sees it flash; the rest of the first frame does not wait for that
  header.hidden = true;
  screen.header.add(header);
  // an extension's header (`ctx.ui.setHeader`) takes the place of ours, as in pi
  header.replaced = () => screen.header.size > 1;
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
  const connecting = connect(components);
  void connecting
    .then(async ({ client }) => {
      header.hidden = await quietStartup(client, cwd);
      screen.requestRender();
    })
    .catch(() => undefined); // a failed connection is reported where it is awaited below
  const [
    connection,
    { InteractiveApp },
    { BUILTIN_COMMANDS, runBuiltinCommand },
    { sessionChoices },
    { openThread },
    { settleFlagsOf },
    { showWarning },
  ] = await Promise.all([
    connecting,
    import("./interactive-app.ts"),
    import("./builtin-commands.ts"),
    import("./pickers.ts"),
    import("../open-thread.ts"),
    import("../extension-flags.ts"),
    import("./warnings.ts"),
  ]);
  const app = new InteractiveApp(screen, connection.client, cwd, BUILTIN_COMMANDS, runBuiltinCommand, {
    editor,
    footer,
    ...(options.remote === undefined ? {} : { remote: true }),
    header,
  });
  // Notes from before the session first shows (the theme's warning) wait for it: opening a
  // thread clears the conversation, which would take them off the screen.
  let waitingNotes: string[] | undefined = [];
  const noteWhenShown = (text: string) => (waitingNotes ? waitingNotes.push(text) : app.view.note(text));
  const showWaitingNotes = () => {
    for (const text of waitingNotes ?? []) app.view.note(text);
    waitingNotes = undefined;
  };
  void chooseTheme(
    screen,
    connection.client,
    background,
    (message) => noteWhenShown(style.warning(`! ${message}`)),
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
  const onSignal = (signal: keyof typeof ENDING_SIGNALS) => app.quit(ENDING_SIGNALS[signal]);
  for (const signal of Object.keys(ENDING_SIGNALS) as (keyof typeof ENDING_SIGNALS)[])
    process.on(signal, onSignal);
  let usageError: string | undefined;
  let firstAttempt = true;
  /** One attempt to open the thread the options ask for; false when it failed (shown as a note). */
  const attempt = async (): Promise<boolean> => {
    const first = firstAttempt;
    firstAttempt = false;
    try {
      let picked: string | undefined;
      if (options.resume && first) {
        const choices = await sessionChoices(connection.client, cwd);
        if (choices.length > 0) {
          const answer = await app.ask(
            `Resume which session? (${homeRelative(cwd)}; type to search, Esc for a new one)`,
            choices,
            { searchable: true },
          );
          if (!("cancelled" in answer)) picked = answer.value;
        }
      }
      const opened = await openThread(connection.client, cwd, options, picked);
      const settled = await settleFlagsOf(connection.client, opened, options);
      if ("error" in settled) {
        // a bad flag is a usage error, as it is before the UI starts: one line on stderr, exit 2
        usageError = settled.error;
        app.quit(2);
        return false;
      }
      if (opened.created && opened.thread.worktree !== undefined) made = opened.thread;
      header.resources = opened.resources;
      await app.session.open(opened.thread, opened.resumed);
      // after the open, which clears the conversation for the thread it shows
      showWaitingNotes();
      for (const warning of opened.warnings) showWarning(app.view, warning);
      void app.loadHeaderDetails();
      if (first && settled.prompt !== undefined) void app.submit(settled.prompt, "enter");
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      showWaitingNotes();
      app.view.note(style.error(`✗ Could not open the session: ${message}`));
      app.view.note(style.muted("Fix the problem, then press Enter to try again."));
      return false;
    }
  };
  let opening: Promise<boolean> | undefined;
  // an open in flight is shared; a failed one is tried again by the next call
  app.openSession = () => {
    opening ??= attempt().then((ok) => {
      if (!ok) opening = undefined;
      return ok;
    });
    return opening;
  };
  const hint = import("./tmux-keys.ts").then(({ tmuxExtendedKeysHint }) => tmuxExtendedKeysHint());
  // after the open, which clears the conversation for the thread it shows
  void Promise.all([app.openSession(), hint]).then(([, text]) => {
    if (text !== undefined) app.view.note(style.muted(text));
  });
  const code = await app.exited;
  for (const signal of Object.keys(ENDING_SIGNALS) as (keyof typeof ENDING_SIGNALS)[])
    process.off(signal, onSignal);
  try {
    screen.stop();
  } catch {
    // the terminal may be gone (SIGHUP): the server still has to shut down
  }
  if (made !== undefined) {
    const { settleWorktreeOnExit } = await import("../worktree-exit.ts");
    const said = await settleWorktreeOnExit(connection.client, made).catch(
      (error: unknown) => `${String(error)}\n`,
    );
    try {
      process.stdout.write(said);
    } catch {
      // no terminal to tell (SIGHUP)
    }
  }
  await connection.close();
  if (usageError !== undefined) process.stderr.write(usageLine(usageError));
  return code;
}

/** Whether settings ask for no header; unreadable settings show it. */
async function quietStartup(client: AppServerClient, cwd: string): Promise<boolean> {
  const read = await client.request("config/read", { cwd }).catch(() => undefined);
  return read?.settings.quietStartup === true;
}
