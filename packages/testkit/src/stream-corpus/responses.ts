/** OpenAI Responses API streams: OpenAI itself and gateways that translate into it. */
import { toolResultsFor } from "./checks.ts";
import { recording } from "./recording.ts";
import type { StreamCase } from "./types.ts";

const RESPONSES_EVENTS = "https://platform.openai.com/docs/api-reference/responses-streaming";

export const RESPONSES_CASES: StreamCase[] = [
  {
    name: "openai-responses-reasoning-text",
    provider: "openai-responses",
    reasoning: true,
    replies: [
      {
        stream: {
          server: "OpenAI Responses API (gpt-5, reasoning summary, stateless)",
          source: RESPONSES_EVENTS,
          format: "responses",
          body: recording("openai-responses-reasoning-text.1.sse"),
        },
        expect: {
          text: "Notes: résumé prêt ✅",
          reasoning: "**Reading notes**",
          usage: { input: 388, output: 120, cacheRead: 512 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    name: "openai-responses-function-call",
    provider: "openai-responses",
    replies: [
      {
        stream: {
          server: "OpenAI Responses API (function calling)",
          source: "https://platform.openai.com/docs/guides/function-calling#streaming",
          format: "responses",
          body: recording("openai-responses-function-call.1.sse"),
        },
        expect: {
          text: "",
          toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
          usage: { input: 300, output: 18 },
          stopReason: "toolUse",
        },
      },
      {
        accept: toolResultsFor(1),
        stream: {
          server: "OpenAI Responses API",
          source: RESPONSES_EVENTS,
          format: "responses",
          body: recording("openai-responses-function-call.2.sse"),
        },
        expect: { text: "The notes are read.", usage: { input: 340, output: 6 }, stopReason: "stop" },
      },
    ],
  },
  {
    name: "openai-responses-refusal",
    provider: "openai-responses",
    replies: [
      {
        stream: {
          server: "OpenAI Responses API (refusal)",
          source: "https://platform.openai.com/docs/api-reference/responses-streaming/response/refusal/delta",
          format: "responses",
          body: recording("openai-responses-refusal.1.sse"),
        },
        expect: { text: "I can't help with that.", usage: { input: 25, output: 7 }, stopReason: "stop" },
      },
    ],
  },
  {
    // agentgateway/agentgateway#2281, pipecat-ai/pipecat#5309: a translated reply whose text
    // only appears in the finished item, with no text deltas before it.
    name: "gateway-responses-done-only",
    provider: "responses-gateway",
    replies: [
      {
        stream: {
          server: "Responses-translating gateway (done-only text items)",
          source: "https://github.com/agentgateway/agentgateway/pull/2281",
          format: "responses",
          body: recording("gateway-responses-done-only.1.sse"),
        },
        expect: { text: "Four: the answer is 4.", usage: { input: 31, output: 6 }, stopReason: "stop" },
      },
    ],
  },
];
