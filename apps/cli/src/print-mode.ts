/**
 * `knightcode -p`: one turn, then exit. Text mode prints the turn's final answer (its
 * last agent message) on stdout; json mode prints every protocol notification of the
 * turn as one JSON line. Nobody is there to answer approvals, so gated calls are
 * declined with a message the model reads.
 */
import type {
  AppServerClient,
  ItemToolCallRequestApprovalParams,
  ItemToolCallRequestApprovalResult,
  ThreadItem,
  Turn,
  TurnRetryingNotification,
} from "@knightcode/app-server-protocol";
import { credentialsHint } from "./credentials.ts";
import { retryLine } from "./retry-line.ts";

/** What the model is told when print mode declines a gated call. */
export const PRINT_MODE_DECLINE =
  "Declined: knightcode runs in print mode (-p) with approval mode ask, so no one can approve this call. " +
  "Do without it, or tell the user to rerun with --approval-mode autoEdit or fullAccess.";

/** The answer print mode gives every approval request. */
export function declineInPrintMode(
  params: ItemToolCallRequestApprovalParams,
): ItemToolCallRequestApprovalResult {
  return params.decisions.includes("decline")
    ? { decision: "decline", message: PRINT_MODE_DECLINE }
    : { decision: "cancel" };
}

/** Where print mode writes. */
export interface PrintOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Runs one turn on `threadId`; resolves with the exit code. */
export async function runPrintTurn(
  client: AppServerClient,
  threadId: string,
  text: string,
  mode: "text" | "json",
  out: PrintOutput,
  /** The thread's model provider, to say how to add its key when the turn fails for want of one. */
  provider?: string,
): Promise<number> {
  client.onRequest("item/toolCall/requestApproval", declineInPrintMode);
  const requestId = `print-${process.pid}`;
  let turnId: string | undefined;
  const messages: ThreadItem[] = [];
  let settle: (turn: Turn) => void = () => {};
  const completed = new Promise<Turn>((resolve) => {
    settle = resolve;
  });
  let active = false;
  const off = client.onNotification("*", (method, params) => {
    const p = params as { threadId?: string; requestId?: string; turn?: Turn; item?: ThreadItem };
    if (p.threadId !== undefined && p.threadId !== threadId) return;
    if (method === "turn/started" && p.requestId === requestId) {
      turnId = p.turn?.id;
      active = true;
    }
    // the turn's window: from its turn/started to its turn/completed
    if (!active) return;
    if (mode === "json") out.stdout(`${JSON.stringify({ method, params })}\n`);
    else if (method === "turn/retrying")
      out.stderr(`knightcode: ${retryLine(params as TurnRetryingNotification)}\n`);
    // a large item arrives as a payload reference; what it holds is known once read
    const type = (p.item as { type?: string } | undefined)?.type;
    if (method === "item/completed" && (type === "agentMessage" || type === "payloadRef"))
      messages.push(p.item!);
    if (method === "turn/completed" && p.turn !== undefined && p.turn.id === turnId) {
      active = false;
      settle(p.turn);
    }
  });
  try {
    const start = await client.request("turn/start", { threadId, text, requestId });
    if (start.status === "handled") return 0;
    if (start.status === "cancelled") {
      out.stderr("knightcode: the turn was cancelled before it started\n");
      return 1;
    }
    const turn = await completed;
    if (turn.status !== "completed") {
      const reason = turn.error === undefined ? turn.status : `${turn.error.kind}: ${turn.error.message}`;
      out.stderr(`knightcode: the turn ${turn.status === "failed" ? "failed" : "ended"} (${reason})\n`);
      if (turn.error?.kind === "auth" && provider !== undefined)
        out.stderr(`knightcode: ${await credentialsHint(client, provider)}\n`);
      return 1;
    }
    if (mode === "text") {
      const answer = await finalAnswer(client, messages);
      out.stdout(answer.endsWith("\n") || answer === "" ? answer : `${answer}\n`);
    }
    return 0;
  } finally {
    off();
  }
}

/** The text of the last agent message among `items` (references are read, newest first). */
async function finalAnswer(client: AppServerClient, items: readonly ThreadItem[]): Promise<string> {
  for (let i = items.length - 1; i >= 0; i--) {
    const resolved = await client.resolveItem(items[i]!);
    if (resolved.type === "agentMessage") return resolved.text;
  }
  return "";
}
