/**
 * What a thread's extensions currently display (`setStatus`, `setWidget`,
 * `setWorkingMessage`, `setWorkingIndicator`, `setWorkingVisible`, `setTitle`), kept so a connection that subscribes later gets it:
 * calls made at `session_start` run before the opening client has subscribed, and a
 * client that resumes a thread finds the widgets its extensions set long ago.
 * `notify` is a moment, not a state, and is not kept.
 */
import type { ExtensionDisplayNotification } from "@knightcode/app-server-protocol";

/** A display call that sets a state (everything but `notify`). */
export type DisplayNotification = ExtensionDisplayNotification;

/** The latest display notification per slot; a cleared slot is dropped. */
export class DisplayState {
  private readonly slots = new Map<string, DisplayNotification>();

  /** Records `notification` as its slot's current value. */
  record(notification: DisplayNotification): void {
    const slot = slotOf(notification);
    if (isCleared(notification)) this.slots.delete(slot);
    else {
      // a slot set again moves to the end, so replay keeps the order of the latest calls
      this.slots.delete(slot);
      this.slots.set(slot, notification);
    }
  }

  /** The notifications that rebuild the current display, in the order they were last made. */
  current(): DisplayNotification[] {
    return [...this.slots.values()];
  }
}

function slotOf(notification: DisplayNotification): string {
  switch (notification.method) {
    case "extension/statusChanged":
      return `status:${notification.params.key}`;
    case "extension/widgetChanged":
      return `widget:${notification.params.key}`;
    case "extension/workingMessageChanged":
      return "workingMessage";
    case "extension/workingIndicatorChanged":
      return "workingIndicator";
    case "extension/workingVisibleChanged":
      return "workingVisible";
    case "extension/titleChanged":
      return "title";
  }
}

function isCleared(notification: DisplayNotification): boolean {
  switch (notification.method) {
    case "extension/statusChanged":
      return notification.params.text === null;
    case "extension/widgetChanged":
      return notification.params.lines === null;
    case "extension/workingMessageChanged":
      return notification.params.message === null;
    case "extension/workingIndicatorChanged":
      return notification.params.indicator === null;
    case "extension/workingVisibleChanged":
      // visible is the default: only a hidden row needs replaying
      return notification.params.visible;
    case "extension/titleChanged":
      return false;
  }
}
