/**
 * An approval request as a card: the tool, what it would do, why it asks, and one button
 * per decision the server offered (never a fixed list). Decline takes an optional message
 * for the agent. The card goes away when answered or withdrawn.
 */
import type {
  ApprovalDecision,
  ItemToolCallRequestApprovalParams,
  ItemToolCallRequestApprovalResult,
} from "@knightcode/app-server-protocol";
import { MAX_DECLINE_MESSAGE_CHARS } from "@knightcode/app-server-protocol";
import { h } from "./dom.ts";

const LABELS: Record<ApprovalDecision, string> = {
  accept: "Allow once",
  acceptForSession: "Allow for this session",
  acceptPrefixForSession: "Allow this command prefix",
  decline: "Decline",
  cancel: "Cancel turn",
};

/** Label of a decision button; the prefix one names the prefix it grants. */
export function decisionLabel(decision: ApprovalDecision, prefix: string | undefined): string {
  return decision === "acceptPrefixForSession" && prefix !== undefined
    ? `Always allow \`${prefix}\``
    : LABELS[decision];
}

/** Shows a card in `container`; resolves with the reader's decision, or `cancel` once withdrawn. */
export function askApproval(
  container: HTMLElement,
  params: ItemToolCallRequestApprovalParams,
  signal: AbortSignal,
): Promise<ItemToolCallRequestApprovalResult> {
  return new Promise((resolve) => {
    const message = h("textarea", {
      class: "decline-message",
      placeholder: "Optional message for the agent when declining",
      maxlength: MAX_DECLINE_MESSAGE_CHARS,
      rows: 2,
    });
    const done = (result: ItemToolCallRequestApprovalResult) => {
      card.remove();
      resolve(result);
    };
    const buttons = params.decisions.map((decision) =>
      h(
        "button",
        {
          class: decision.startsWith("accept") ? "primary" : "",
          "data-decision": decision,
          onclick: () => {
            const text = message.value.trim();
            done(decision === "decline" && text !== "" ? { decision, message: text } : { decision });
          },
        },
        decisionLabel(decision, params.prefix),
      ),
    );
    const input =
      params.input === undefined ? "(input too large to show inline)" : JSON.stringify(params.input, null, 2);
    const card = h(
      "div",
      { class: "approval-card", "data-item-id": params.itemId },
      h("div", { class: "approval-title" }, `Allow ${params.toolName}?`),
      params.reason === undefined ? null : h("div", { class: "approval-reason" }, params.reason),
      h("pre", { class: "approval-input" }, input),
      params.decisions.includes("decline") ? message : null,
      h("div", { class: "approval-buttons" }, ...buttons),
    );
    container.appendChild(card);
    signal.addEventListener("abort", () => done({ decision: "cancel" }), { once: true });
  });
}
