import { type SessionGrants, type ShellKind, withPrefixGrant, withToolGrant } from "./grants.ts";
import { shellKindOf } from "./shell-tools.ts";

/** The choices a client can be offered for one gated tool call. */
export type ApprovalDecision =
  | "accept"
  | "acceptForSession"
  | "acceptPrefixForSession"
  | "decline"
  | "cancel";

/** Every decision name, for validation. */
export const APPROVAL_DECISIONS: readonly ApprovalDecision[] = [
  "accept",
  "acceptForSession",
  "acceptPrefixForSession",
  "decline",
  "cancel",
];

/** Longest decline message accepted, in characters (Unicode code points). */
export const MAX_DECLINE_MESSAGE_CHARS = 4000;

/** What the gate asks the user about one tool call. */
export interface ApprovalRequest {
  readonly toolName: string;
  /** The choices to render, in order; anything else the client answers counts as decline. */
  readonly decisions: readonly ApprovalDecision[];
  /** Why this call is gated, when there is more to say than the mode (e.g. a write outside the workspace). */
  readonly reason?: string;
  /** The shell prefix `acceptPrefixForSession` would remember. */
  readonly prefix?: readonly string[];
  /** Set for shell tools; decides which shell's grants a prefix joins. */
  readonly shellKind?: ShellKind;
}

/** A client's answer after validation. */
export interface ApprovalReply {
  readonly decision: string;
  readonly message?: string;
}

/** Result of checking a raw client answer. */
export type ReplyValidation =
  | { ok: true; reply: ApprovalReply }
  | { ok: false; code: "invalidParams"; message: string };

/** What happens to the tool call once the client has answered. */
export interface DecisionOutcome {
  /** `run` executes the call; `decline` and `cancel` both block it. */
  readonly outcome: "run" | "decline" | "cancel";
  /** The decline reason the agent sees, when the user gave one. */
  readonly message?: string;
  /** The thread's grants afterwards; the same object when nothing was granted. */
  readonly grants: SessionGrants;
  /** The decision as it took effect (an unoffered or invalid answer becomes `decline`). */
  readonly decision: ApprovalDecision;
  /** Why the answer was not taken as given: it was invalid or not offered. */
  readonly rejected?: { code: "invalidParams" | "unoffered"; message: string };
}

/** Counts characters as code points, so an emoji is one character, as a user would count. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * Checks the shape of a client's answer: an object with a string `decision` and an
 * optional string `message` of at most 4,000 characters. A longer message makes the
 * whole answer invalid (it is not truncated): the user's words are relayed whole or not at all.
 */
export function validateApprovalReply(raw: unknown): ReplyValidation {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { ok: false, code: "invalidParams", message: "Approval reply must be an object" };
  }
  const { decision, message } = raw as { decision?: unknown; message?: unknown };
  if (typeof decision !== "string") {
    return { ok: false, code: "invalidParams", message: "Approval reply needs a string decision" };
  }
  if (message === undefined || message === null) return { ok: true, reply: { decision } };
  if (typeof message !== "string") {
    return { ok: false, code: "invalidParams", message: "Decline message must be a string" };
  }
  if (characterCount(message) > MAX_DECLINE_MESSAGE_CHARS) {
    return {
      ok: false,
      code: "invalidParams",
      message: `Decline message exceeds ${MAX_DECLINE_MESSAGE_CHARS} characters`,
    };
  }
  return { ok: true, reply: { decision, message } };
}

/**
 * Applies a client's raw answer to `request`. `cancel` always blocks; an invalid or
 * unoffered answer blocks as `decline` and never grants; session grants are added
 * only for the decision actually offered and only with what the request named.
 */
export function applyDecision(
  request: ApprovalRequest,
  raw: unknown,
  grants: SessionGrants,
): DecisionOutcome {
  const checked = validateApprovalReply(raw);
  if (!checked.ok) {
    return {
      outcome: "decline",
      decision: "decline",
      grants,
      rejected: { code: checked.code, message: checked.message },
    };
  }
  const { decision, message } = checked.reply;
  if (decision === "cancel") return { outcome: "cancel", decision: "cancel", grants };
  const offered = (request.decisions as readonly string[]).includes(decision);
  if (!offered) return unoffered(decision, grants);

  switch (decision as ApprovalDecision) {
    case "accept":
      return { outcome: "run", decision: "accept", grants };
    case "acceptForSession":
      // Shell tools are remembered only by prefix, never by name.
      if (request.shellKind !== undefined || shellKindOf(request.toolName) !== null) {
        return unoffered(decision, grants);
      }
      return {
        outcome: "run",
        decision: "acceptForSession",
        grants: withToolGrant(grants, request.toolName),
      };
    case "acceptPrefixForSession":
      if (request.shellKind === undefined || request.prefix === undefined || request.prefix.length === 0) {
        return unoffered(decision, grants);
      }
      return {
        outcome: "run",
        decision: "acceptPrefixForSession",
        grants: withPrefixGrant(grants, { shell: request.shellKind, prefix: request.prefix }),
      };
    case "decline":
      return message !== undefined && message.length > 0
        ? { outcome: "decline", decision: "decline", grants, message }
        : { outcome: "decline", decision: "decline", grants };
    default:
      return unoffered(decision, grants);
  }
}

function unoffered(decision: string, grants: SessionGrants): DecisionOutcome {
  return {
    outcome: "decline",
    decision: "decline",
    grants,
    rejected: {
      code: "unoffered",
      message: `Decision ${JSON.stringify(decision).slice(0, 80)} was not offered`,
    },
  };
}
