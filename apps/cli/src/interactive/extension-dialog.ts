/**
 * An extension's dialog (`extension/requestDialog`) as an inline prompt: `confirm` as
 * Yes/No, `select` as its choices, `input` as a text field, `editor` as a multi-line editor
 * holding the prefill. Esc (or the server withdrawing
 * the request when the turn is interrupted) answers null, the dialog's no-answer value.
 */
import type {
  ExtensionNotifyNotification,
  ExtensionRequestDialogParams,
  ExtensionRequestDialogResult,
} from "@knightcode/app-server-protocol";
import type { Choice, ChoiceAnswer } from "./ui/choice-prompt.ts";
import { style } from "./ui/style.ts";

/** The prompt's title lines. */
export function dialogTitle(params: ExtensionRequestDialogParams): string {
  const body = params.kind === "confirm" && params.message ? `\n${params.message}` : "";
  return `${style.accent("?")} ${style.bold(params.title)}${body}`;
}

/** What the user may pick. */
export function dialogChoices(params: ExtensionRequestDialogParams): Choice[] {
  switch (params.kind) {
    case "confirm":
      return [
        { value: "yes", label: "Yes" },
        { value: "no", label: "No" },
      ];
    case "select":
      return (params.options ?? []).map((option, index) => ({ value: String(index), label: option }));
    case "input": {
      const hint = params.placeholder ? ` ${style.muted(`(e.g. ${params.placeholder})`)}` : "";
      return [{ value: "text", label: "Answer", askText: `Enter sends, Esc skips${hint}` }];
    }
    case "editor":
      // asked with an editor prompt, not a list
      return [];
  }
}

/** The answer for the server. */
export function dialogAnswer(
  params: ExtensionRequestDialogParams,
  answer: ChoiceAnswer,
): ExtensionRequestDialogResult {
  if ("cancelled" in answer) return { value: null };
  switch (params.kind) {
    case "confirm":
      return { value: answer.value === "yes" };
    case "select":
      return { value: params.options?.[Number(answer.value)] ?? null };
    case "input":
    case "editor":
      return { value: answer.text ?? "" };
  }
}

/** A `ctx.ui.notify` message as a conversation note. */
export function notice(params: ExtensionNotifyNotification): string {
  if (params.type === "error") return style.error(`✗ ${params.message}`);
  if (params.type === "warning") return style.warning(`! ${params.message}`);
  return style.muted(params.message);
}
