/**
 * Approval requests as ACP permission requests. The options are built from the decisions
 * the server offered, never from a fixed list, and an answer maps back only onto an
 * offered decision: anything else (an unknown option, a cancelled outcome) declines.
 */
import type { PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import type { ApprovalDecision } from "@knightcode/app-server-protocol";

/** What the approval request offered. */
export interface OfferedApproval {
  toolName: string;
  decisions: readonly ApprovalDecision[];
  /** The shell prefix `acceptPrefixForSession` would grant. */
  prefix?: string;
}

/** The ACP options for an approval request, one per offered decision except `cancel`. */
export function permissionOptions(offer: OfferedApproval): PermissionOption[] {
  const options: PermissionOption[] = [];
  for (const decision of offer.decisions) {
    switch (decision) {
      case "accept":
        options.push({ optionId: "accept", name: "Allow once", kind: "allow_once" });
        break;
      case "acceptForSession":
        options.push({
          optionId: "acceptForSession",
          name: `Always allow ${offer.toolName} in this session`,
          kind: "allow_always",
        });
        break;
      case "acceptPrefixForSession":
        options.push({
          optionId: "acceptPrefixForSession",
          name: offer.prefix
            ? `Always allow \`${offer.prefix}\` commands in this session`
            : "Always allow this command in this session",
          kind: "allow_always",
        });
        break;
      case "decline":
        options.push({ optionId: "decline", name: "Reject", kind: "reject_once" });
        break;
      case "cancel":
        // a cancelled outcome is always available in ACP; it is not an option to pick
        break;
    }
  }
  return options;
}

/** The server decision for the editor's answer. */
export function decisionFor(outcome: RequestPermissionOutcome, offer: OfferedApproval): ApprovalDecision {
  if (outcome.outcome !== "selected") return "decline";
  const chosen = offer.decisions.find((d) => d === outcome.optionId && d !== "cancel");
  return chosen ?? "decline";
}

/** True for the decisions that let the tool run. */
export function allows(decision: ApprovalDecision): boolean {
  return decision === "accept" || decision === "acceptForSession" || decision === "acceptPrefixForSession";
}
