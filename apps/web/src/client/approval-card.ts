/**
 * An approval request as a card: the tool, what it would do (the server's preview: the
 * diff a file tool would apply, a command with its folder, an extension or MCP tool's
 * source; the raw input otherwise), why it asks, and one button per decision the server
 * offered (never a fixed list). Decline takes an optional message
 * for the agent. The card goes away when answered or withdrawn.
 */
import type {
  ApprovalDecision,
  ItemToolCallRequestApprovalParams,
  ItemToolCallRequestApprovalResult,
} from "@knightcode/app-server-protocol";
import { MAX_DECLINE_MESSAGE_CHARS } from "@knightcode/app-server-protocol";
import { diffView } from "./diff-view.ts";
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

function inputView(params: ItemToolCallRequestApprovalParams): HTMLElement {
  const text =
    params.input === undefined ? "(input too large to show inline)" : JSON.stringify(params.input, null, 2);
  return h("pre", { class: "approval-input" }, text);
}

/** What the call would do, from the server's preview; the raw input when there is none. */
function previewView(params: ItemToolCallRequestApprovalParams): HTMLElement {
  const preview = params.preview;
  if (preview === undefined) return inputView(params);
  switch (preview.type) {
    case "fileChange":
      return h(
        "div",
        { class: "approval-preview" },
        h(
          "div",
          { class: "file-change-path" },
          `${preview.kind === "add" ? "create" : "modify"} ${preview.path}`,
        ),
        preview.error === undefined
          ? null
          : h("div", { class: "approval-error" }, `would fail: ${preview.error}`),
        preview.diff === undefined
          ? preview.diffRef === undefined
            ? null
            : h(
                "div",
                { class: "approval-reason" },
                `(diff of ${preview.diffRef.byteLength} bytes, too large to show)`,
              )
          : diffView(preview.diff),
      );
    case "command":
      return h(
        "div",
        { class: "approval-preview" },
        h("pre", { class: "approval-command" }, `$ ${preview.command}`),
        h("div", { class: "approval-reason" }, `in ${preview.cwd}`),
      );
    case "tool":
      return h(
        "div",
        { class: "approval-preview" },
        h(
          "div",
          { class: "approval-reason" },
          `${preview.source === "mcp" ? "MCP server" : "extension"} ${preview.server}, tool ${preview.tool}`,
        ),
        inputView(params),
      );
    case "sampling":
      return h(
        "div",
        { class: "approval-preview" },
        h(
          "div",
          { class: "approval-reason" },
          `MCP server ${preview.server} asks the model (up to ${preview.maxTokens} tokens)`,
        ),
        preview.systemPrompt === undefined
          ? null
          : h("pre", { class: "approval-input" }, `system: ${preview.systemPrompt}`),
        h(
          "pre",
          { class: "approval-input" },
          preview.messages.map((m) => `${m.role}: ${m.text}`).join("\n\n"),
        ),
      );
  }
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
    const card = h(
      "div",
      { class: "approval-card", "data-item-id": params.itemId },
      h("div", { class: "approval-title" }, `Allow ${params.toolName}?`),
      params.reason === undefined ? null : h("div", { class: "approval-reason" }, params.reason),
      previewView(params),
      params.decisions.includes("decline") ? message : null,
      h("div", { class: "approval-buttons" }, ...buttons),
    );
    container.appendChild(card);
    signal.addEventListener("abort", () => done({ decision: "cancel" }), { once: true });
  });
}
