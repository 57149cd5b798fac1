/**
 * The recorded-stream corpus: reply shapes real model servers send, each written by hand from
 * the server's public docs or a public bug report (named in `source`), never captured from a
 * live server. Tests replay them through the providers and through `knightcode app-server`.
 */
import type { RecordedStream, ReplayExchange } from "../replay-server.ts";

/** What one reply must come to once the client has read it. */
export interface ExpectedReply {
  /** The reply's text, all text blocks joined ("" when it has none). */
  text: string;
  /** Its reasoning, all thinking blocks joined, when it has any. */
  reasoning?: string;
  /** Its tool calls in order, with their parsed arguments. */
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  /** Token counts the reply reports (cacheRead defaults to 0). */
  usage?: { input: number; output: number; cacheRead?: number };
  stopReason: "stop" | "length" | "toolUse" | "error";
  /** For `stopReason: "error"`: the classification the failure must get. */
  errorKind?: "auth" | "rateLimit" | "contextOverflow" | "network" | "provider" | "other";
}

/** One recorded reply, the check of the request it answers, and what it must come to. */
export interface CorpusReply extends ReplayExchange {
  stream: RecordedStream;
  expect: ExpectedReply;
}

/** One case: a model described in models.json and the replies its server sends, in order. */
export interface StreamCase {
  /** Unique, also the model ID in the generated models.json. */
  name: string;
  /** The provider name in models.json; compat defaults are detected from it (e.g. "deepseek"). */
  provider: string;
  /** Model-level compat settings, when the case needs explicit ones. */
  compat?: Record<string, unknown>;
  /** The model reasons (thinking levels on). */
  reasoning?: boolean;
  /**
   * First the reply to the user's prompt; when it calls tools, the reply to the request that
   * carries their results follows, and so on.
   */
  replies: CorpusReply[];
}

/** The user prompt every case is driven with. */
export const CORPUS_PROMPT = "Look at the notes and tell me what they say.";
/** A file the cases' `read` calls ask for; tests create it in the working directory. */
export const CORPUS_NOTES_FILE = "notes.txt";
