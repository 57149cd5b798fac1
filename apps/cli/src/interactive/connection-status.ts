/**
 * What the terminal shows when a `--remote` connection drops: a line above the footer
 * while it is being made again, a note once it is back, and, when the server no longer
 * held what was missed (`replay: "gone"`), the open thread redrawn from the resume
 * snapshot so the screen never stays stale.
 */
import type { ConnectionEvents } from "../terminal-client.ts";
import type { InteractiveApp } from "./interactive-app.ts";
import { style } from "./ui/style.ts";

/** Hands the connection's events to the screen. */
export function showConnectionChanges(app: InteractiveApp, events: ConnectionEvents): void {
  events.onReconnecting = (attempt, error) => {
    const why = error === undefined ? "" : ` (${error.message})`;
    app.footer.connection = `⚠ connection lost: reconnecting… attempt ${attempt}${why}`;
    app.screen.requestRender();
  };
  events.onReconnected = () => {
    app.footer.connection = undefined;
    app.view.note(style.muted("↻ reconnected; the thread goes on where it was"));
  };
  events.onGap = (threadId, resumed) => {
    if (threadId !== app.session.threadId) return;
    void app.request(async () => {
      await app.session.open(resumed.thread, resumed);
      app.view.note(
        style.muted("↻ reconnected after a longer gap than the server keeps: redrawn from its snapshot"),
      );
    });
  };
}
