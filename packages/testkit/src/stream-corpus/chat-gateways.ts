/** Gateways and proxies in front of other servers: LiteLLM, OpenRouter, Venice, OpenCode Zen, CRLF and no-[DONE] proxies. */
import { toolResultsFor } from "./checks.ts";
import { recording } from "./recording.ts";
import type { StreamCase } from "./types.ts";

export const GATEWAY_CASES: StreamCase[] = [
  {
    // BerriAI/litellm#11407: the id on the first fragment only, indices from 1, content "" beside the calls.
    name: "litellm-bedrock-tool-index-one",
    provider: "litellm",
    replies: [
      {
        stream: {
          server: "LiteLLM proxy in front of Bedrock Claude (/chat/completions)",
          source: "https://github.com/BerriAI/litellm/issues/11407",
          format: "chat-completions",
          body: recording("litellm-bedrock-tool-index-one.1.sse"),
        },
        expect: {
          text: "Reading the notes.",
          toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
          usage: { input: 1432, output: 61 },
          stopReason: "toolUse",
        },
      },
      {
        accept: toolResultsFor(1),
        stream: {
          server: "LiteLLM proxy (/chat/completions)",
          source: "https://docs.litellm.ai/docs/completion/stream",
          format: "chat-completions",
          body: recording("litellm-bedrock-tool-index-one.2.sse"),
        },
        expect: { text: "They are about the release.", stopReason: "stop" },
      },
    ],
  },
  {
    // Tool arguments as a JSON object instead of a string (also an old LiteLLM bug).
    name: "venice-arguments-object",
    provider: "venice",
    replies: [
      {
        stream: {
          server: "Venice.ai API (OpenAI-compatible, mistral-31-24b)",
          source: "https://github.com/ar-jan/llm-venice/issues/45",
          format: "chat-completions",
          body: recording("venice-arguments-object.1.sse"),
        },
        expect: {
          text: "",
          toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
          usage: { input: 300, output: 20 },
          stopReason: "toolUse",
        },
      },
      {
        accept: toolResultsFor(1),
        stream: {
          server: "Venice.ai API (OpenAI-compatible)",
          source: "https://docs.venice.ai/api-reference/endpoint/chat/completions",
          format: "chat-completions",
          body: recording("venice-arguments-object.2.sse"),
        },
        expect: { text: "Got them.", stopReason: "stop" },
      },
    ],
  },
  {
    // The streamed arguments, then the whole arguments again in the finishing chunk.
    name: "gateway-arguments-repeated-whole",
    provider: "gateway",
    replies: [
      {
        stream: {
          server: "OpenAI-compatible gateway that restates tool arguments on the final chunk",
          source: "https://github.com/vercel/ai/pull/14277",
          format: "chat-completions",
          body: recording("gateway-arguments-repeated-whole.1.sse"),
        },
        expect: { text: "", toolCalls: [{ name: "ls", arguments: { path: "." } }], stopReason: "toolUse" },
      },
      {
        accept: toolResultsFor(1),
        stream: {
          server: "OpenAI-compatible gateway",
          source: "https://platform.openai.com/docs/api-reference/chat-streaming/streaming",
          format: "chat-completions",
          body: recording("gateway-arguments-repeated-whole.2.sse"),
        },
        expect: { text: "Listed.", stopReason: "stop" },
      },
    ],
  },
  {
    // OpenCode Zen (anomalyco/opencode#43882): the whole reply, then [DONE], never a finish_reason.
    name: "gateway-done-without-finish-reason",
    provider: "opencode-zen",
    replies: [
      {
        stream: {
          server: "OpenCode Zen gateway (OpenAI-compatible chat/completions)",
          source: "https://github.com/anomalyco/opencode/issues/43882",
          format: "chat-completions",
          body: recording("gateway-done-without-finish-reason.1.sse"),
        },
        expect: {
          text: "All four notes are about testing.",
          usage: { input: 90, output: 8 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // OpenRouter keeps the connection alive with comment lines and passes reasoning as `reasoning`.
    name: "openrouter-comments-reasoning",
    provider: "openrouter",
    reasoning: true,
    replies: [
      {
        stream: {
          server: "OpenRouter (/api/v1/chat/completions)",
          source: "https://openrouter.ai/docs/api-reference/streaming",
          format: "chat-completions",
          body: recording("openrouter-comments-reasoning.1.sse"),
        },
        expect: {
          text: "Ça parle de tests.",
          reasoning: "Check the file.",
          usage: { input: 33, output: 17 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // An ASP.NET-style proxy: CRLF line endings, no [DONE]; the finish reason ends the reply.
    name: "proxy-crlf-no-done",
    provider: "proxy",
    replies: [
      {
        stream: {
          server: "Azure API Management / ASP.NET SSE proxy (CRLF framing, no [DONE])",
          source: "https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream",
          format: "chat-completions",
          body: recording("proxy-crlf-no-done.1.sse"),
        },
        expect: { text: "Über die Notizen: alles gut.", usage: { input: 50, output: 7 }, stopReason: "stop" },
      },
    ],
  },
];
