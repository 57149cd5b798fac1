/**
 * An approval request as an inline prompt: the tool, its key argument and reason, then
 * exactly the decisions the server offered. Declining asks for an optional message the
 * model reads.
 */
import type {
  ApprovalDecision,
  ItemToolCallRequestApprovalParams,
  ItemToolCallRequestApprovalResult,
} from "@knightcode/app-server-protocol";
import { MAX_DECLINE_MESSAGE_CHARS } from "@knightcode/app-server-protocol";
import { keyArgument } from "./tool-call-block.ts";
import type { Choice } from "./ui/choice-prompt.ts";
import { style } from "./ui/style.ts";

/** The label of each decision as the prompt offers it. */
export function decisionChoice(decision: ApprovalDecision, prefix: string | undefined): Choice {
  switch (decision) {
    case "accept":
      return { value: decision, label: "Yes" };
    case "acceptForSession":
      return { value: decision, label: "Yes, and don't ask again for this tool in this session" };
    case "acceptPrefixForSession":
      return {
        value: decision,
        label: `Yes, and don't ask again for commands starting with \`${prefix ?? ""}\``,
      };
    case "decline":
      return {
        value: decision,
        label: "No, and tell the model why",
        askText: "Message to the model (Enter sends, may be empty):",
      };
    case "cancel":
      return { value: decision, label: "No, and stop the turn" };
  }
}

/** The prompt's title lines. */
export function approvalTitle(params: ItemToolCallRequestApprovalParams): string {
  const what =
    params.input === undefined ? "(input too large to show)" : keyArgument(params.toolName, params.input);
  const reason = params.reason === undefined ? "" : `\n${style.muted(params.reason)}`;
  return `${style.warning("?")} Allow ${style.bold(params.toolName)} ${what}${reason}`;
}

/** The offered choices, in the server's order. */
export function approvalChoices(params: ItemToolCallRequestApprovalParams): Choice[] {
  return params.decisions.map((d) => decisionChoice(d, params.prefix));
}

/**
 * The answer for a chosen decision. Esc means decline without a message, even when the
 * server did not offer `decline`: the spec treats an unoffered decision as a decline, and
 * backing out of a prompt must never answer with one of its accepts.
 */
export function approvalAnswer(
  answer: { value: string; text?: string } | { cancelled: true },
): ItemToolCallRequestApprovalResult {
  if ("cancelled" in answer) return { decision: "decline" };
  const decision = answer.value as ApprovalDecision;
  const message = answer.text?.trim();
  return message === undefined || message === ""
    ? { decision }
    : { decision, message: message.slice(0, MAX_DECLINE_MESSAGE_CHARS) };
}
