/**
 * What the open thread's extensions display: statuses under the footer, widgets beside
 * the editor, the working message and the window title. The server replays a thread's
 * display when the terminal subscribes, which is before `thread/start` (or
 * `thread/resume`) has answered with the thread's ID, so notifications for a thread that
 * is not open yet wait here until it opens.
 */
import type { ExtensionDisplayNotification } from "@knightcode/app-server-protocol";
import type { ExtensionWidgets } from "./extension-widgets.ts";
import type { Footer } from "./footer.ts";
import type { Spinner } from "./ui/spinner.ts";
import { keepColoursOnly, plainText } from "./ui/terminal-safe.ts";

/** One display notification. */
export type DisplayChange = ExtensionDisplayNotification;

/** Enough for any replay; a thread that never opens cannot grow it past this. */
const MAX_WAITING = 256;

/** Where the display goes. */
export interface DisplayParts {
  footer: Footer;
  widgets: ExtensionWidgets;
  spinner: Spinner;
  setTitle(title: string): void;
  /** Puts back the terminal's own title. */
  restoreTitle(): void;
  changed(): void;
}

export class ExtensionDisplay {
  private readonly waiting = new Map<string, DisplayChange[]>();
  private waitingCount = 0;
  /** The thread whose display is on screen. */
  private shown: string | undefined;

  constructor(
    private readonly parts: DisplayParts,
    /** The open thread, if any. */
    private readonly openThread: () => string | undefined,
  ) {}

  /** Shows a change for the open thread; keeps one for another thread until that one opens. */
  handle(change: DisplayChange): void {
    const threadId = change.params.threadId;
    if (threadId === this.openThread()) {
      this.apply(change);
      return;
    }
    if (this.waitingCount >= MAX_WAITING) return;
    const list = this.waiting.get(threadId) ?? [];
    list.push(change);
    this.waiting.set(threadId, list);
    this.waitingCount++;
  }

  /**
   * `threadId` is now the open thread: another thread's statuses, widgets, working message
   * and title leave the screen (the server replays the new thread's own as it subscribes),
   * then what waited for it is shown and the rest dropped.
   */
  opened(threadId: string): void {
    if (this.shown !== undefined && this.shown !== threadId) this.clear();
    this.shown = threadId;
    const list = this.waiting.get(threadId) ?? [];
    this.waiting.clear();
    this.waitingCount = 0;
    for (const change of list) this.apply(change);
    this.parts.changed();
  }

  private clear(): void {
    const { footer, widgets, spinner } = this.parts;
    footer.statuses.clear();
    widgets.clear();
    spinner.setMessage(undefined);
    spinner.setIndicator(undefined);
    spinner.setVisible(true);
    this.parts.restoreTitle();
  }

  private apply(change: DisplayChange): void {
    const { footer, widgets, spinner } = this.parts;
    switch (change.method) {
      case "extension/statusChanged":
        if (change.params.text === null) footer.statuses.delete(change.params.key);
        else footer.statuses.set(change.params.key, change.params.text);
        break;
      case "extension/widgetChanged":
        widgets.apply(change.params);
        break;
      case "extension/workingMessageChanged":
        spinner.setMessage(
          change.params.message === null ? undefined : keepColoursOnly(change.params.message),
        );
        break;
      case "extension/workingIndicatorChanged": {
        const indicator = change.params.indicator;
        spinner.setIndicator(
          indicator === null
            ? undefined
            : {
                frames: indicator.frames.map((frame) => keepColoursOnly(frame)),
                ...(indicator.intervalMs === undefined ? {} : { intervalMs: indicator.intervalMs }),
              },
        );
        break;
      }
      case "extension/workingVisibleChanged":
        spinner.setVisible(change.params.visible);
        break;
      case "extension/titleChanged":
        this.parts.setTitle(plainText(change.params.title));
        break;
    }
    this.parts.changed();
  }
}
