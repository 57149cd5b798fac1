/**
 * Summary generation through the model layer. Every request disables prompt-cache
 * writes (a one-off prompt is never reused) and reports its usage so session totals
 * include summarization work.
 */
import type { AssistantMessage, Context, Model, StreamOptions, Usage } from "@knightcode/ai";
import type { AgentMessage } from "@knightcode/session-store";
import { computeFileLists, type FileListDetails, formatFileLists } from "./file-ops.ts";
import type { CompactionPreparation } from "./prepare.ts";
import {
  COMPACTION_PROMPT,
  COMPACTION_UPDATE_PROMPT,
  NO_PRIOR_HISTORY,
  SPLIT_SPAN_HEADING,
  SUMMARIZER_SYSTEM_PROMPT,
  TURN_PREFIX_PROMPT,
} from "./prompts.ts";
import { serializeConversation } from "./serialize.ts";

/** One complete (non-streaming) model request; `complete` from `@knightcode/ai` fits. */
export type CompleteFunction = (
  model: Model,
  context: Context,
  options?: StreamOptions,
) => Promise<AssistantMessage>;

/** How to reach the summarizing model; captured once per operation. */
export interface SummaryModel {
  model: Model;
  complete: CompleteFunction;
  apiKey?: string;
  headers?: Record<string, string>;
}

/** A failed or aborted summarization request. */
export class SummarizationError extends Error {
  /** True when the request was aborted rather than failed. */
  readonly aborted: boolean;
  constructor(message: string, aborted: boolean, options?: ErrorOptions) {
    super(message, options);
    this.name = "SummarizationError";
    this.aborted = aborted;
  }
}

/** Summary text and the usage of the request(s) that produced it. */
export interface SummaryWithUsage {
  text: string;
  usage: Usage | undefined;
}

/** Sums usage records; undefined when none is given. */
export function addUsage(...records: (Usage | undefined)[]): Usage | undefined {
  const present = records.filter((u): u is Usage => u !== undefined);
  if (present.length === 0) return undefined;
  const sum = (pick: (u: Usage) => number) => present.reduce((total, u) => total + pick(u), 0);
  return {
    input: sum((u) => u.input),
    output: sum((u) => u.output),
    cacheRead: sum((u) => u.cacheRead),
    cacheWrite: sum((u) => u.cacheWrite),
    totalTokens: sum((u) => u.totalTokens ?? u.input + u.output + u.cacheRead + u.cacheWrite),
    cost: {
      input: sum((u) => u.cost.input),
      output: sum((u) => u.cost.output),
      cacheRead: sum((u) => u.cost.cacheRead),
      cacheWrite: sum((u) => u.cost.cacheWrite),
      total: sum((u) => u.cost.total),
    },
  };
}

/** Sends one summarization prompt and returns its text; throws `SummarizationError` on failure. */
export async function requestSummary(
  prompt: string,
  maxTokens: number,
  target: SummaryModel,
  signal?: AbortSignal,
): Promise<SummaryWithUsage> {
  if (signal?.aborted) throw new SummarizationError("Summarization aborted", true);
  const limit = target.model.maxTokens > 0 ? Math.min(maxTokens, target.model.maxTokens) : maxTokens;
  const options: StreamOptions = { maxTokens: Math.max(1, limit), disablePromptCacheWrites: true };
  if (signal) options.signal = signal;
  if (target.apiKey !== undefined) options.apiKey = target.apiKey;
  if (target.headers) options.headers = target.headers;
  let response: AssistantMessage;
  try {
    response = await target.complete(
      target.model,
      {
        systemPrompt: SUMMARIZER_SYSTEM_PROMPT,
        messages: [{ role: "user", content: [{ type: "text", text: prompt }], timestamp: Date.now() }],
      },
      options,
    );
  } catch (error) {
    const aborted = signal?.aborted === true;
    throw new SummarizationError(aborted ? "Summarization aborted" : String(error), aborted, {
      cause: error,
    });
  }
  if (response.stopReason === "aborted") throw new SummarizationError("Summarization aborted", true);
  if (response.stopReason === "error") {
    throw new SummarizationError(`Summarization failed: ${response.errorMessage ?? "unknown error"}`, false);
  }
  const text = response.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
  if (!text) throw new SummarizationError("Summarization returned no text", false);
  return { text, usage: response.usage };
}

/** Options for a history summary. */
export interface HistorySummaryOptions {
  reserveTokens: number;
  customInstructions?: string;
  previousSummary?: string;
  signal?: AbortSignal;
}

/** Builds the history-summary prompt: transcript, previous summary (iterative update), instructions. */
export function historySummaryPrompt(
  messages: readonly AgentMessage[],
  options: HistorySummaryOptions,
): string {
  let instructions = options.previousSummary ? COMPACTION_UPDATE_PROMPT : COMPACTION_PROMPT;
  if (options.customInstructions) instructions += `\n\nAdditional focus: ${options.customInstructions}`;
  let prompt = `<conversation>\n${serializeConversation(messages)}\n</conversation>\n\n`;
  if (options.previousSummary)
    prompt += `<previous-summary>\n${options.previousSummary}\n</previous-summary>\n\n`;
  return prompt + instructions;
}

/** Summarizes messages (updating `previousSummary` when given) and reports usage. */
export function generateSummaryWithUsage(
  messages: readonly AgentMessage[],
  target: SummaryModel,
  options: HistorySummaryOptions,
): Promise<SummaryWithUsage> {
  return requestSummary(
    historySummaryPrompt(messages, options),
    Math.floor(0.8 * options.reserveTokens),
    target,
    options.signal,
  );
}

/** Summarizes messages and returns only the text. */
export async function generateSummary(
  messages: readonly AgentMessage[],
  target: SummaryModel,
  options: HistorySummaryOptions,
): Promise<string> {
  return (await generateSummaryWithUsage(messages, target, options)).text;
}

/**
 * Summarizes the early part of a split user-message span, with a smaller output budget.
 * Manual `/compact` instructions apply here too: the user asked to focus the whole summary.
 */
export function generateTurnPrefixSummary(
  messages: readonly AgentMessage[],
  target: SummaryModel,
  reserveTokens: number,
  signal?: AbortSignal,
  customInstructions?: string,
): Promise<SummaryWithUsage> {
  let prompt = `<conversation>\n${serializeConversation(messages)}\n</conversation>\n\n${TURN_PREFIX_PROMPT}`;
  if (customInstructions) prompt += `\n\nAdditional focus: ${customInstructions}`;
  return requestSummary(prompt, Math.floor(0.5 * reserveTokens), target, signal);
}

/** What a compaction writes, before the store assigns ID, parent and time. */
export interface CompactionResult {
  summary: string;
  /** Undefined for retain-none: the entry records its own ID. */
  firstKeptEntryId: string | undefined;
  tokensBefore: number;
  details: FileListDetails;
  usage: Usage | undefined;
}

/** Generates the summary for a prepared compaction (two merged summaries for a split span). */
export async function compact(
  preparation: CompactionPreparation,
  target: SummaryModel,
  options: { customInstructions?: string; signal?: AbortSignal } = {},
): Promise<CompactionResult> {
  const { settings, messagesToSummarize, turnPrefixMessages, previousSummary } = preparation;
  const historyOptions: HistorySummaryOptions = { reserveTokens: settings.reserveTokens };
  if (options.customInstructions) historyOptions.customInstructions = options.customInstructions;
  if (previousSummary) historyOptions.previousSummary = previousSummary;
  if (options.signal) historyOptions.signal = options.signal;

  let summary: string;
  let usage: Usage | undefined;
  if (preparation.isSplitTurn && turnPrefixMessages.length > 0) {
    const needsHistory = messagesToSummarize.length > 0 || previousSummary !== undefined;
    const [history, prefix] = await Promise.all([
      needsHistory
        ? generateSummaryWithUsage(messagesToSummarize, target, historyOptions)
        : Promise.resolve<SummaryWithUsage>({ text: NO_PRIOR_HISTORY, usage: undefined }),
      generateTurnPrefixSummary(
        turnPrefixMessages,
        target,
        settings.reserveTokens,
        options.signal,
        options.customInstructions,
      ),
    ]);
    summary = `${history.text}\n\n---\n\n${SPLIT_SPAN_HEADING}\n\n${prefix.text}`;
    usage = addUsage(history.usage, prefix.usage);
  } else {
    const history = await generateSummaryWithUsage(messagesToSummarize, target, historyOptions);
    summary = history.text;
    usage = history.usage;
  }
  const details = computeFileLists(preparation.fileOps);
  return {
    summary: summary + formatFileLists(details),
    firstKeptEntryId: preparation.firstKeptEntryId,
    tokensBefore: preparation.tokensBefore,
    details,
    usage,
  };
}
