/** `ask_user` and `submit_plan`: tools whose answer comes from the host (the user, through a UI). */
import type { Static } from "typebox";
import type { AgentTool } from "../types.ts";
import { text } from "./tool-env.ts";
import { withTypeBoxKinds } from "./typebox-kinds.ts";

/** Arguments of `ask_user`. */
export const AskUserParams = withTypeBoxKinds({
  type: "object",
  required: ["question"],
  properties: {
    question: { type: "string", description: "The question to ask the user" },
    options: { type: "array", items: { type: "string" }, description: "Suggested answers to choose from" },
  },
} as const);
/** The static type of {@link AskUserParams}. */
export type AskUserParams = Static<typeof AskUserParams>;

/** Arguments of `submit_plan`. */
export const SubmitPlanParams = withTypeBoxKinds({
  type: "object",
  required: ["plan"],
  properties: {
    plan: { type: "string", description: "The plan, in Markdown" },
  },
} as const);
/** The static type of {@link SubmitPlanParams}. */
export type SubmitPlanParams = Static<typeof SubmitPlanParams>;

/** The host's answer to a question. */
export type AskUserHandler = (request: AskUserParams, signal: AbortSignal) => Promise<string>;

/** The host's verdict on a plan. */
export type SubmitPlanHandler = (
  plan: string,
  signal: AbortSignal,
) => Promise<{ approved: boolean; feedback?: string }>;

/** Creates `ask_user`; without a handler it tells the model nobody can answer. */
export function createAskUserTool(handler: AskUserHandler | undefined): AgentTool<typeof AskUserParams> {
  return {
    name: "ask_user",
    label: "Ask user",
    description: "Ask the user a question and wait for the answer. Use it when a decision is theirs to make.",
    parameters: AskUserParams,
    async execute(args, ctx) {
      if (!handler)
        throw new Error("No user is available to answer questions here; decide and say what you assumed.");
      const answer = await handler(args, ctx.signal);
      return {
        content: text(answer === "" ? "(the user gave an empty answer)" : answer),
        details: { answer },
      };
    },
  };
}

/** Creates `submit_plan`; without a handler it tells the model plans cannot be reviewed. */
export function createSubmitPlanTool(
  handler: SubmitPlanHandler | undefined,
): AgentTool<typeof SubmitPlanParams> {
  return {
    name: "submit_plan",
    label: "Submit plan",
    description: "Submit a plan for the user to approve before you carry it out.",
    parameters: SubmitPlanParams,
    async execute(args, ctx) {
      if (!handler) throw new Error("No user is available to review plans here.");
      const verdict = await handler(args.plan, ctx.signal);
      const feedback = verdict.feedback ? `\n\nFeedback: ${verdict.feedback}` : "";
      return {
        content: text(`${verdict.approved ? "Plan approved. Carry it out." : "Plan rejected."}${feedback}`),
        details: verdict,
      };
    },
  };
}
