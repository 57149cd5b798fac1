/**
 * The interactive agent: the screen, the open thread's view, and what the keys do.
 * Enter sends (or steers the running turn), Alt+Enter queues a follow-up, Esc
 * interrupts and puts queued text back, Ctrl+C clears then exits, Ctrl+D on an empty
 * editor exits, Ctrl+O expands tool output. Every action is a protocol request.
 */
import {
  type AppServerClient,
  EXTENSION_DISPLAY_METHODS,
  type ItemToolCallRequestApprovalParams,
  isAppServerError,
} from "@knightcode/app-server-protocol";
import { approvalDetail } from "./approval-card.ts";
import { approvalAnswer, approvalChoices, approvalTitle } from "./approval-prompt.ts";
import { type BuiltinCommand, createCompleter } from "./completion.ts";
import { ConversationView } from "./conversation-view.ts";
import { dialogAnswer, dialogChoices, dialogTitle, notice } from "./extension-dialog.ts";
import { type DisplayChange, ExtensionDisplay } from "./extension-display.ts";
import { ExtensionWidgets } from "./extension-widgets.ts";
import { Footer } from "./footer.ts";
import type { Header } from "./header.ts";
import { listedCommands, parseSlashLine, showHelp } from "./help-command.ts";
import { mentionedResources } from "./resource-mentions.ts";
import { SessionView } from "./session-view.ts";
import { runShell } from "./shell-command.ts";
import type { Block } from "./ui/block.ts";
import { type Choice, type ChoiceAnswer, ChoicePrompt } from "./ui/choice-prompt.ts";
import { type EditorAnswer, EditorPrompt } from "./ui/editor-prompt.ts";
import { isKey } from "./ui/keys.ts";
import type { PromptEditor } from "./ui/prompt-editor.ts";
import type { Screen } from "./ui/screen.ts";
import { type SecretAnswer, SecretPrompt } from "./ui/secret-prompt.ts";
import { Spinner } from "./ui/spinner.ts";
import { style } from "./ui/style.ts";

/** Runs a `/command`; returns false when the name is not a built-in. */
export type CommandRunner = (app: InteractiveApp, name: string, args: string) => Promise<boolean>;

/** The app over one screen and one connection. */
export class InteractiveApp {
  readonly view: ConversationView;
  readonly session: SessionView;
  readonly editor: PromptEditor;
  readonly footer: Footer;
  readonly header: Header | undefined;
  readonly widgets: ExtensionWidgets;
  /** Attached to a server elsewhere (`--remote`): its files and checkpoints are there. */
  readonly remote: boolean;
  private readonly spinner: Spinner;
  private exitArmed = false;
  private prompts: Promise<unknown> = Promise.resolve();
  private settleExit: (code: number) => void = () => {};
  /** Resolves with the exit code when the user quits. */
  readonly exited: Promise<number>;
  /**
   * Waits for the session to open, or tries again when the last attempt failed; false
   * when it is still not open (the reason was shown). Set by whoever opens the session.
   */
  openSession: () => Promise<boolean> = async () => false;

  constructor(
    readonly screen: Screen,
    readonly client: AppServerClient,
    readonly cwd: string,
    readonly builtins: readonly BuiltinCommand[],
    private readonly runCommand: CommandRunner,
    /** The editor, footer and header of a first frame drawn before the connection existed. */
    early: { editor?: PromptEditor; footer?: Footer; header?: Header; remote?: boolean } = {},
  ) {
    this.remote = early.remote === true;
    this.header = early.header;
    this.exited = new Promise((resolve) => {
      this.settleExit = resolve;
    });
    const changed = () => screen.requestRender();
    this.view = new ConversationView(screen.conversation, changed);
    this.footer = early.footer ?? new Footer(cwd);
    this.spinner = new Spinner(changed);
    this.session = new SessionView(client, this.view, this.footer, this.spinner, changed);
    this.editor = early.editor ?? screen.createEditor();
    this.editor.onSubmit = (text) => void this.submit(text, "enter");
    this.editor.setCompleter(createCompleter(client, cwd, builtins, () => this.session.threadId));
    screen.status.add(this.spinner);
    screen.status.add(this.session.queueBlock);
    this.widgets = new ExtensionWidgets(screen.aboveEditor, screen.belowEditor);
    screen.setEditor(this.editor);
    screen.setFooter(this.footer);
    screen.focus(this.editor);
    screen.onKey((data) => this.onKey(data));
    client.onRequest("item/toolCall/requestApproval", (params, { signal }) => this.approve(params, signal));
    client.onRequest("extension/requestDialog", async (params, { signal }) => {
      if (params.kind === "editor") {
        const edited = await this.edit(dialogTitle(params), params.prefill ?? "", signal);
        return dialogAnswer(params, "cancelled" in edited ? edited : { value: "text", text: edited.text });
      }
      const answer = await this.ask(dialogTitle(params), dialogChoices(params), {
        signal,
        textOnly: params.kind === "input",
      });
      return dialogAnswer(params, answer);
    });
    client.onNotification("extension/notify", (params) => {
      if (params.threadId === this.session.threadId) this.view.note(notice(params));
    });
    const display = new ExtensionDisplay(
      {
        footer: this.footer,
        widgets: this.widgets,
        spinner: this.spinner,
        setTitle: (title) => screen.setTitle(title),
        restoreTitle: () => screen.restoreTitle(),
        changed,
      },
      () => this.session.threadId,
    );
    this.session.onOpened = (threadId) => display.opened(threadId);
    for (const method of EXTENSION_DISPLAY_METHODS)
      client.onNotification(method, (params) => display.handle({ method, params } as DisplayChange));
    // last, so the app's own handlers of a method run before the view's, as they always have
    this.session.subscribe();
  }

  /**
   * Fills the header in once the thread is open: its model and the commands it offers
   * (whether it is drawn at all, `quietStartup`, was settled right after connecting).
   */
  async loadHeaderDetails(): Promise<void> {
    const header = this.header;
    if (header === undefined) return;
    header.thread = this.session.thread;
    header.commands = await listedCommands(this);
    this.screen.requestRender();
  }

  /** Ends the app with `code`. */
  quit(code = 0): void {
    this.settleExit(code);
  }

  /** Shows a choice prompt above the editor and waits for the answer; one prompt at a time. */
  ask(
    title: string,
    choices: Choice[],
    options: {
      signal?: AbortSignal;
      searchable?: boolean;
      textOnly?: boolean;
      detail?: string[];
      selected?: string;
    } = {},
  ): Promise<ChoiceAnswer> {
    return this.present(options.signal, () => {
      const prompt = new ChoicePrompt(
        title,
        choices,
        () => this.screen.requestRender(),
        options.searchable,
        options.detail,
        options.selected,
      );
      const only = choices[0];
      if (options.textOnly === true && only?.askText !== undefined)
        prompt.openText(only.value, only.askText, true);
      return prompt;
    });
  }

  /** Asks for a secret (an API key), drawn hidden; one prompt at a time. */
  secret(title: string): Promise<SecretAnswer> {
    return this.present(undefined, () => new SecretPrompt(title, () => this.screen.requestRender()));
  }

  /** Shows a multi-line editor prompt holding `prefill` and waits for the text; one prompt at a time. */
  edit(title: string, prefill: string, signal?: AbortSignal): Promise<EditorAnswer> {
    return this.present(
      signal,
      () => new EditorPrompt(title, this.screen.createEditor(), prefill, () => this.screen.requestRender()),
    );
  }

  /** Queues a prompt after the open ones, shows it in the status area with the keyboard, and waits for its answer. */
  private present<A>(
    signal: AbortSignal | undefined,
    make: () => Block & { answer: Promise<A>; cancel(): void },
  ): Promise<A | { cancelled: true }> {
    const shown = this.prompts.then(async () => {
      if (signal?.aborted) return { cancelled: true } as const;
      const prompt = make();
      signal?.addEventListener("abort", () => prompt.cancel(), { once: true });
      this.screen.status.add(prompt);
      this.screen.focus(prompt);
      this.screen.requestRender();
      try {
        return await prompt.answer;
      } finally {
        this.screen.status.remove(prompt);
        this.screen.focus(this.editor);
        this.screen.requestRender();
      }
    });
    this.prompts = shown.catch(() => undefined);
    return shown;
  }

  private async approve(params: ItemToolCallRequestApprovalParams, signal: AbortSignal) {
    const detail = await approvalDetail(params, (ref) => this.client.readPayload(ref));
    const answer = await this.ask(approvalTitle(params), approvalChoices(params), { signal, detail });
    return approvalAnswer(answer);
  }

  private onKey(data: string): boolean {
    const editing = this.screen.focusedBlock === this.editor;
    const wasArmed = this.exitArmed;
    this.exitArmed = false;
    if (isKey(data, "ctrl+c")) {
      if (!editing) return false;
      if (wasArmed && this.editor.isEmpty()) {
        this.quit(0);
        return true;
      }
      this.editor.setText("");
      this.exitArmed = true;
      this.view.note(style.muted("Press Ctrl+C again to exit"));
      return true;
    }
    if (!editing) return false;
    if (isKey(data, "ctrl+d")) {
      if (!this.editor.isEmpty()) return false;
      this.quit(0);
      return true;
    }
    if (isKey(data, "ctrl+o")) {
      this.view.toggleExpanded();
      return true;
    }
    if (this.editor.isCompleting()) return false;
    if (isKey(data, "alt+enter")) {
      void this.submit(this.editor.getText(), "queue");
      return true;
    }
    if (isKey(data, "escape") && this.session.runningTurnId !== undefined) {
      void this.interrupt();
      return true;
    }
    if (isKey(data, "alt+up") && this.session.queue.followUp.length > 0) {
      void this.takeBackLastQueued();
      return true;
    }
    return false;
  }

  /** Esc while running: interrupt, and give back what was queued (the server drops it). */
  private async interrupt(): Promise<void> {
    const threadId = this.session.threadId;
    if (threadId === undefined) return;
    const queued = [...this.session.queue.steering, ...this.session.queue.followUp.map((q) => q.text)];
    await this.request(() => this.client.request("turn/interrupt", { threadId }));
    if (queued.length > 0) {
      const current = this.editor.getText();
      this.editor.setText([...queued, ...(current === "" ? [] : [current])].join("\n\n"));
      this.screen.requestRender();
    }
  }

  private async takeBackLastQueued(): Promise<void> {
    const threadId = this.session.threadId;
    const last = this.session.queue.followUp.at(-1);
    if (threadId === undefined || last === undefined) return;
    const { removed } = await this.client.request("turn/queue/remove", { threadId, queueId: last.id });
    if (removed) {
      this.editor.setText(last.text);
      this.screen.requestRender();
    }
  }

  /**
   * Enter (send or steer) or Alt+Enter (queue). Inputs are handled one after another in
   * the order they were typed (deciding what a `/word` is asks the server), each until
   * its request is made; a `!command` runs on without holding the next input.
   */
  submit(raw: string, how: "enter" | "queue"): Promise<void> {
    const text = raw.trim();
    if (text === "") return Promise.resolve();
    this.editor.setText("");
    this.editor.addToHistory(text);
    this.screen.requestRender();
    const handled = this.submitted.then(() => this.dispatch(text, how));
    this.submitted = handled.catch(() => undefined);
    return handled;
  }

  private submitted: Promise<void> = Promise.resolve();

  private async dispatch(text: string, how: "enter" | "queue"): Promise<void> {
    // waits for an open in flight; after a failed one (a broken config file) it tries again
    if (this.session.threadId === undefined && !(await this.openSession())) {
      if (this.editor.isEmpty()) this.editor.setText(text);
      this.screen.requestRender();
      return;
    }
    const threadId = this.session.threadId;
    if (threadId === undefined) return;
    let sent = text;
    if (text.startsWith("/")) {
      const slash = parseSlashLine(text);
      if ("literal" in slash) sent = slash.literal;
      else if (how === "enter" && (await this.request(() => this.runCommand(this, slash.name, slash.args))))
        return;
      else if (!(await this.isServerCommand(slash.name))) {
        this.view.note(
          style.warning(`Unknown command /${slash.name}; /help lists them (//text sends a slash).`),
        );
        return;
      }
    }
    if (how === "enter" && sent === text && text.startsWith("!") && text.replace(/^!!?/, "").trim() !== "") {
      void this.request(() => runShell(this, threadId, text));
      return;
    }
    const running = this.session.runningTurnId;
    if (running === undefined && !(await this.ensureModel(threadId))) {
      if (this.editor.isEmpty()) this.editor.setText(text);
      return;
    }
    await this.request(async () => {
      if (how === "queue") await this.client.request("turn/queue/add", { threadId, text: sent });
      else if (running !== undefined && (await this.steer(threadId, running, sent))) return;
      else {
        const resources = await mentionedResources(
          async () => (await this.client.request("mcpServer/list", { threadId })).servers,
          sent,
        );
        await this.client.request("turn/start", {
          threadId,
          text: sent,
          ...(resources.length > 0 ? { resources } : {}),
        });
      }
    });
  }

  /**
   * A thread that opened without a model (its default lives in a models.json that did
   * not parse then) takes the configured default now, so the Enter after fixing the file
   * runs the turn; false, with the reason shown, while that still fails.
   */
  private async ensureModel(threadId: string): Promise<boolean> {
    if (this.session.thread?.model !== undefined) return true;
    const settings = (await this.client.request("config/read", { cwd: this.cwd }).catch(() => undefined))
      ?.settings;
    const provider = settings?.defaultProvider;
    const id = settings?.defaultModel;
    if (typeof provider !== "string" || typeof id !== "string") return true;
    try {
      const { thread } = await this.client.request("thread/settings/update", {
        threadId,
        model: { provider, id },
      });
      this.session.setThread(thread);
      if (this.header !== undefined) this.header.thread = thread;
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.view.note(
        style.error(
          `✗ No model: ${message}. Fix the file named above and press Enter again, or pick one with /model.`,
        ),
      );
      return false;
    }
  }

  /** Whether the server offers `/name` (an extension command, prompt template, skill, MCP prompt, its own). */
  private async isServerCommand(name: string): Promise<boolean> {
    if (this.builtins.some((b) => b.name === name)) return true;
    return (await listedCommands(this)).some((c) => c.name === name);
  }

  /** `/help`. */
  showHelp(): Promise<void> {
    return showHelp(this, this.builtins);
  }

  /**
   * Steers the running turn; false when it ended meanwhile (`turnMismatch`), so the
   * text starts a turn of its own instead of being lost.
   */
  private async steer(threadId: string, turnId: string, text: string): Promise<boolean> {
    try {
      await this.client.request("turn/steer", { threadId, expectedTurnId: turnId, text });
      return true;
    } catch (error) {
      if (isAppServerError(error, "turnMismatch")) return false;
      throw error;
    }
  }

  /** Runs a request; a failure becomes a note naming its code instead of an unhandled rejection. */
  async request<T>(run: () => Promise<T>): Promise<T | undefined> {
    try {
      return await run();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // an internal error's code tells the user nothing the message does not
      const shown = isAppServerError(error) && error.code !== "internal" ? ` (${error.code})` : "";
      this.view.note(style.error(`✗ ${message}${shown}`));
      return undefined;
    }
  }
}
