/** Anthropic Messages streams: Anthropic itself, MiniMax's compatible endpoint, and proxies. */
import { toolResultsFor } from "./checks.ts";
import { recording } from "./recording.ts";
import type { StreamCase } from "./types.ts";

const ANTHROPIC_STREAMING = "https://docs.anthropic.com/en/docs/build-with-claude/streaming";

export const ANTHROPIC_CASES: StreamCase[] = [
  {
    // Thinking with its signature, a ping, text, then a tool call whose input streams in pieces.
    name: "anthropic-thinking-tool-use",
    provider: "anthropic-direct",
    reasoning: true,
    replies: [
      {
        stream: {
          server: "Anthropic Messages API (extended thinking with tool use)",
          source: ANTHROPIC_STREAMING,
          format: "anthropic-messages",
          body: recording("anthropic-thinking-tool-use.1.sse"),
        },
        expect: {
          text: "Let me read them.",
          reasoning: "I need the notes' contents.",
          toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
          usage: { input: 472, output: 89, cacheRead: 2048 },
          stopReason: "toolUse",
        },
      },
      {
        accept: toolResultsFor(1),
        stream: {
          server: "Anthropic Messages API",
          source: ANTHROPIC_STREAMING,
          format: "anthropic-messages",
          body: recording("anthropic-thinking-tool-use.2.sse"),
        },
        expect: {
          text: "They're a to-do list — 3 items.",
          usage: { input: 610, output: 12, cacheRead: 2048 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    name: "anthropic-refusal",
    provider: "anthropic-direct",
    replies: [
      {
        stream: {
          server: "Anthropic Messages API (streaming refusal, Claude 4)",
          source:
            "https://docs.anthropic.com/en/docs/test-and-evaluate/strengthen-guardrails/handle-streaming-refusals",
          format: "anthropic-messages",
          body: recording("anthropic-refusal.1.sse"),
        },
        expect: {
          text: "The model declined to answer this request (refusal).",
          usage: { input: 30, output: 1 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // earendil-works/pi#6567: MiniMax's Anthropic endpoint sends message_delta without usage.
    name: "minimax-anthropic-no-delta-usage",
    provider: "minimax",
    replies: [
      {
        stream: {
          server: "MiniMax Anthropic-compatible API (api.minimax.io/anthropic)",
          source: "https://github.com/earendil-works/pi/issues/6567",
          format: "anthropic-messages",
          body: recording("minimax-anthropic-no-delta-usage.1.sse"),
        },
        expect: { text: "Hello from MiniMax.", usage: { input: 10, output: 0 }, stopReason: "stop" },
      },
    ],
  },
  {
    // openclaw/openclaw#75136: MiniMax's Anthropic stream may report usage with OpenAI names,
    // and at message_stop rather than in message_delta.
    name: "minimax-anthropic-usage-at-stop",
    provider: "minimax",
    reasoning: true,
    replies: [
      {
        stream: {
          server: "MiniMax Anthropic-compatible API (usage aliases at message_stop)",
          source: "https://github.com/openclaw/openclaw/pull/75136",
          format: "anthropic-messages",
          body: recording("minimax-anthropic-usage-at-stop.1.sse"),
        },
        expect: {
          text: "备忘录：周五发布。",
          reasoning: "Short answer.",
          usage: { input: 1200, output: 42 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // earendil-works/pi#1983, openclaw/openclaw#37571: a proxy that drops the `event:` lines.
    name: "proxy-anthropic-no-event-lines",
    provider: "anthropic-proxy",
    replies: [
      {
        stream: {
          server: "Third-party Anthropic-compatible proxy (data: lines only)",
          source: "https://github.com/earendil-works/pi/issues/1983",
          format: "anthropic-messages",
          body: recording("proxy-anthropic-no-event-lines.1.sse"),
        },
        expect: {
          text: "",
          toolCalls: [{ name: "ls", arguments: { path: "." } }],
          usage: { input: 55, output: 21 },
          stopReason: "toolUse",
        },
      },
      {
        accept: toolResultsFor(1),
        stream: {
          server: "Third-party Anthropic-compatible proxy (data: lines only)",
          source: "https://github.com/openclaw/openclaw/issues/37571",
          format: "anthropic-messages",
          body: recording("proxy-anthropic-no-event-lines.2.sse"),
        },
        expect: { text: "The folder holds notes.txt.", usage: { input: 80, output: 7 }, stopReason: "stop" },
      },
    ],
  },
  {
    // LiteLLM's /v1/messages bridge once sent the tool input whole in content_block_start.
    name: "litellm-anthropic-input-whole",
    provider: "litellm-messages",
    replies: [
      {
        stream: {
          server: "LiteLLM /v1/messages bridge (tool input sent whole, no input_json_delta)",
          source: "https://docs.litellm.ai/docs/anthropic_unified",
          format: "anthropic-messages",
          body: recording("litellm-anthropic-input-whole.1.sse"),
        },
        expect: {
          text: "",
          toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
          usage: { input: 200, output: 15 },
          stopReason: "toolUse",
        },
      },
      {
        accept: toolResultsFor(1),
        stream: {
          server: "LiteLLM /v1/messages bridge",
          source: "https://docs.litellm.ai/docs/anthropic_unified",
          format: "anthropic-messages",
          body: recording("litellm-anthropic-input-whole.2.sse"),
        },
        expect: { text: "Notes read.", usage: { input: 240, output: 3 }, stopReason: "stop" },
      },
    ],
  },
];
