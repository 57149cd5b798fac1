/**
 * The instructions sent to the summarizing model. Section names follow the spec:
 * compaction summaries end with Critical Context, branch summaries stop after Next Steps.
 */

/** System prompt for every summarization request. */
export const SUMMARIZER_SYSTEM_PROMPT = `You write context checkpoints. You are given a transcript of a coding session between a user and an AI coding assistant, and you produce a structured summary in exactly the requested format.

Never continue the conversation, answer questions from it, or call tools. Output only the summary.`;

const PROGRESS_AND_DECISIONS = `## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work under way]

### Blocked
- [Anything stopping progress, or "(none)"]

## Key Decisions
- **[Decision]**: [Why it was made]

## Next Steps
1. [What to do next, in order]`;

const CLOSING = "Be brief in every section. Keep exact file paths, identifiers and error messages.";

/** First compaction: summarize the transcript from scratch. */
export const COMPACTION_PROMPT = `Summarize the transcript above as a context checkpoint that another model will continue from. Use exactly this format:

## Goal
[What the user wants to achieve; list several goals if the session covers several tasks.]

## Constraints & Preferences
- [Requirements, constraints and preferences the user stated, or "(none)"]

${PROGRESS_AND_DECISIONS}

## Critical Context
- [Data, examples or references needed to carry on, or "(none)"]

${CLOSING}`;

/** Repeated compaction: fold new messages into the previous summary. */
export const COMPACTION_UPDATE_PROMPT = `The transcript above holds NEW messages. Merge them into the existing checkpoint given in <previous-summary>.

Rules:
- Keep everything from the previous summary that still matters.
- Add the new progress, decisions and context.
- Move finished items from "In Progress" to "Done" and rewrite "Next Steps" for the current state.
- Keep exact file paths, identifiers and error messages.

Use exactly this format:

## Goal
[Previous goals, plus new ones if the task grew.]

## Constraints & Preferences
- [Previous ones, plus any new ones]

${PROGRESS_AND_DECISIONS}

## Critical Context
- [Previous context that still matters, plus anything new, or "(none)"]

${CLOSING}`;

/** The early part of a user-message span that was too large to keep whole. */
export const TURN_PREFIX_PROMPT = `The transcript above is the BEGINNING of a user request whose later part is kept verbatim. Summarize it so the kept part makes sense on its own:

## Original Request
[What the user asked for.]

## Early Progress
- [Decisions made and work done so far]

## Context for Suffix
- [What is needed to understand the work that follows]

${CLOSING}`;

/** Branch summaries: the compaction sections up to Next Steps. */
export const BRANCH_SUMMARY_PROMPT = `Summarize the transcript above, a conversation branch the user is leaving, so its lessons can be used after returning to another point. Use exactly this format:

## Goal
[What the user was trying to do on this branch.]

## Constraints & Preferences
- [Requirements, constraints and preferences stated, or "(none)"]

${PROGRESS_AND_DECISIONS}

${CLOSING}`;

/** Put in front of a generated branch summary so the model knows where it comes from. */
export const BRANCH_SUMMARY_PREAMBLE =
  "Summary of a conversation branch the user explored before coming back here:\n\n";

/** Heading joining the history summary and a split span's prefix summary. */
export const SPLIT_SPAN_HEADING = "**Earlier part of the current request (split span):**";

/** History summary used when a split span has no earlier history to summarize. */
export const NO_PRIOR_HISTORY = "No earlier history.";
