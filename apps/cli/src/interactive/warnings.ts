/** Warnings from the server (settings, models.json, extensions, trust), shown with the file they are about. */
import type { Warning } from "@knightcode/app-server-protocol";
import type { ConversationView } from "./conversation-view.ts";
import { homeRelative } from "./header.ts";
import { style } from "./ui/style.ts";

/** `! message (path:line:col)`; the path is left out when the message names it already. */
export function warningText(warning: Warning): string {
  const where =
    warning.path === undefined || warning.message.includes(warning.path)
      ? ""
      : ` (${homeRelative(warning.path)}${warning.line === undefined ? "" : `:${warning.line}${warning.column === undefined ? "" : `:${warning.column}`}`})`;
  return `! ${warning.message}${where}`;
}

/** Shows one warning as a note. */
export function showWarning(view: ConversationView, warning: Warning): void {
  view.note(style.warning(warningText(warning)));
}
