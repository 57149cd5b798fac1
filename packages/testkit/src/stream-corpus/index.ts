import { ANTHROPIC_CASES } from "./anthropic.ts";
import { GATEWAY_CASES } from "./chat-gateways.ts";
import { HOSTED_CASES } from "./chat-hosted.ts";
import { LOCAL_CASES } from "./chat-local.ts";
import { RESPONSES_CASES } from "./responses.ts";
import type { StreamCase } from "./types.ts";

export { allOf, reasoningContentCameBack, thoughtSignaturesCameBack, toolResultsFor } from "./checks.ts";
export type { CorpusReply, ExpectedReply, StreamCase } from "./types.ts";
export { CORPUS_NOTES_FILE, CORPUS_PROMPT } from "./types.ts";

/** Every recorded case, grouped by server family. */
export const STREAM_CORPUS: readonly StreamCase[] = [
  ...LOCAL_CASES,
  ...HOSTED_CASES,
  ...GATEWAY_CASES,
  ...RESPONSES_CASES,
  ...ANTHROPIC_CASES,
];

const API_OF = {
  "chat-completions": "openai-completions",
  responses: "openai-responses",
  "anthropic-messages": "anthropic-messages",
} as const;

/** The API a case's model uses, from the format of its first recording. */
export function corpusApi(streamCase: StreamCase): (typeof API_OF)[keyof typeof API_OF] {
  return API_OF[streamCase.replies[0]!.stream.format];
}

/**
 * A models.json object describing every case as a model of its provider, all at `baseUrl`:
 * the provider names are the cases' own, so compat defaults are detected as for the real
 * server, and a case's explicit compat is set on its model.
 */
export function corpusModelsJson(baseUrl: string, cases: readonly StreamCase[] = STREAM_CORPUS) {
  const providers: Record<string, { baseUrl: string; apiKey: string; models: unknown[] }> = {};
  for (const c of cases) {
    providers[c.provider] ??= { baseUrl, apiKey: "replay-key", models: [] };
    providers[c.provider]!.models.push({
      id: c.name,
      api: corpusApi(c),
      reasoning: c.reasoning ?? false,
      contextWindow: 200_000,
      maxTokens: 4_096,
      ...(c.compat ? { compat: c.compat } : {}),
    });
  }
  return { providers };
}
