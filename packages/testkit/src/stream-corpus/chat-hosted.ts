/** Hosted Chat Completions servers: OpenAI, Gemini's compatible endpoint, DeepSeek, Mistral, Groq, Moonshot, Qwen. */
import { allOf, reasoningContentCameBack, thoughtSignaturesCameBack, toolResultsFor } from "./checks.ts";
import { recording } from "./recording.ts";
import type { StreamCase } from "./types.ts";

const OPENAI_STREAMING = "https://platform.openai.com/docs/api-reference/chat-streaming/streaming";
const GEMINI_SIGNATURE = "CiQBcsjafGx1Zm9vYmFyLXNpZ25hdHVyZS1mb3ItcmVhZA==";

export const HOSTED_CASES: StreamCase[] = [
  {
    name: "openai-chat-text",
    provider: "openai-chat",
    replies: [
      {
        stream: {
          server: "OpenAI Chat Completions (stream_options.include_usage)",
          source: OPENAI_STREAMING,
          format: "chat-completions",
          body: recording("openai-chat-text.1.sse"),
        },
        expect: {
          text: "The notes say “ship it” 🚀.",
          usage: { input: 176, output: 9, cacheRead: 1024 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // Parallel calls interleaved by index, ids on the first fragment only.
    name: "openai-chat-parallel-tools",
    provider: "openai-chat",
    replies: [
      {
        stream: {
          server: "OpenAI Chat Completions (parallel tool calls)",
          source: "https://platform.openai.com/docs/guides/function-calling#streaming",
          format: "chat-completions",
          body: recording("openai-chat-parallel-tools.1.sse"),
        },
        expect: {
          text: "",
          toolCalls: [
            { name: "read", arguments: { path: "notes.txt" } },
            { name: "ls", arguments: { path: "." } },
          ],
          usage: { input: 520, output: 48 },
          stopReason: "toolUse",
        },
      },
      {
        accept: toolResultsFor(2),
        stream: {
          server: "OpenAI Chat Completions",
          source: OPENAI_STREAMING,
          format: "chat-completions",
          body: recording("openai-chat-parallel-tools.2.sse"),
        },
        expect: { text: "Done with both.", usage: { input: 700, output: 4 }, stopReason: "stop" },
      },
    ],
  },
  {
    // A refusal arrives in `delta.refusal` while `content` stays null.
    name: "openai-chat-refusal",
    provider: "openai-chat",
    replies: [
      {
        stream: {
          server: "OpenAI Chat Completions (refusal)",
          source: "https://platform.openai.com/docs/guides/structured-outputs#refusals",
          format: "chat-completions",
          body: recording("openai-chat-refusal.1.sse"),
        },
        expect: { text: "I'm sorry, I can't help with that.", stopReason: "stop" },
      },
    ],
  },
  {
    // Azure OpenAI ends a filtered completion with finish_reason "content_filter".
    name: "azure-openai-content-filter",
    provider: "azure-openai",
    replies: [
      {
        stream: {
          server: "Azure OpenAI (content filtering)",
          source: "https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter",
          format: "chat-completions",
          body: recording("azure-openai-content-filter.1.sse"),
        },
        expect: { text: "", stopReason: "error", errorKind: "other" },
      },
    ],
  },
  {
    // Gemini's compatible endpoint sends a parallel batch in one delta: ids, no index, and the
    // thought signature on the first call only.
    name: "gemini-parallel-no-index",
    provider: "gemini",
    reasoning: true,
    replies: [
      {
        stream: {
          server: "Gemini API OpenAI compatibility (gemini-3-pro-preview)",
          source: "https://ai.google.dev/gemini-api/docs/thought-signatures",
          format: "chat-completions",
          body: recording("gemini-parallel-no-index.1.sse"),
        },
        expect: {
          text: "",
          toolCalls: [
            { name: "read", arguments: { path: "notes.txt" } },
            { name: "ls", arguments: { path: "." } },
          ],
          usage: { input: 840, output: 31 },
          stopReason: "toolUse",
        },
      },
      {
        accept: allOf(toolResultsFor(2), thoughtSignaturesCameBack([GEMINI_SIGNATURE, undefined])),
        stream: {
          server: "Gemini API OpenAI compatibility (gemini-3-pro-preview)",
          source: "https://ai.google.dev/gemini-api/docs/openai",
          format: "chat-completions",
          body: recording("gemini-parallel-no-index.2.sse"),
        },
        expect: {
          text: "Notes read; the folder has two files.",
          usage: { input: 905, output: 9 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // DeepSeek's thinking mode: reasoning_content, then a tool call; the follow-up is rejected
    // unless the assistant message carries that reasoning_content.
    name: "deepseek-thinking-tool-call",
    provider: "deepseek",
    reasoning: true,
    replies: [
      {
        stream: {
          server: "DeepSeek API (thinking mode with tools)",
          source: "https://api-docs.deepseek.com/guides/thinking_mode",
          format: "chat-completions",
          body: recording("deepseek-thinking-tool-call.1.sse"),
        },
        expect: {
          text: "",
          reasoning: "I should read the notes file first.",
          toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
          usage: { input: 128, output: 35, cacheRead: 512 },
          stopReason: "toolUse",
        },
      },
      {
        accept: allOf(toolResultsFor(1), reasoningContentCameBack("I should read the notes file first.")),
        stream: {
          server: "DeepSeek API (thinking mode)",
          source: "https://api-docs.deepseek.com/guides/thinking_mode",
          format: "chat-completions",
          body: recording("deepseek-thinking-tool-call.2.sse"),
        },
        expect: {
          text: "They say: buy milk.",
          reasoning: "The file is read.",
          usage: { input: 80, output: 14, cacheRead: 640 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // DeepSeek sends keep-alive comment lines while the request waits in its queue.
    name: "deepseek-keepalive-comments",
    provider: "deepseek",
    replies: [
      {
        stream: {
          server: "DeepSeek API (keep-alive while queued)",
          source: "https://api-docs.deepseek.com/quick_start/rate_limit",
          format: "chat-completions",
          body: recording("deepseek-keepalive-comments.1.sse"),
        },
        expect: { text: "笔记很短。", usage: { input: 64, output: 5 }, stopReason: "stop" },
      },
    ],
  },
  {
    // Magistral streams `content` as an array of parts: thinking parts, then text parts.
    name: "mistral-magistral-content-parts",
    provider: "mistral",
    reasoning: true,
    replies: [
      {
        stream: {
          server: "Mistral La Plateforme (magistral-medium-2509)",
          source: "https://docs.mistral.ai/capabilities/reasoning/",
          format: "chat-completions",
          body: recording("mistral-magistral-content-parts.1.sse"),
        },
        expect: {
          text: "Une liste de courses.",
          reasoning: "Summarise the notes briefly.",
          usage: { input: 45, output: 30 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // Mistral sends each tool call whole in one chunk, with a nine-character id.
    name: "mistral-tool-call-whole",
    provider: "mistral",
    replies: [
      {
        stream: {
          server: "Mistral La Plateforme (mistral-large-latest, function calling)",
          source: "https://docs.mistral.ai/capabilities/function_calling/",
          format: "chat-completions",
          body: recording("mistral-tool-call-whole.1.sse"),
        },
        expect: {
          text: "",
          toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
          usage: { input: 120, output: 25 },
          stopReason: "toolUse",
        },
      },
      {
        accept: toolResultsFor(1),
        stream: {
          server: "Mistral La Plateforme (mistral-large-latest)",
          source: "https://docs.mistral.ai/api/#tag/chat/operation/chat_completion_v1_chat_completions_post",
          format: "chat-completions",
          body: recording("mistral-tool-call-whole.2.sse"),
        },
        expect: { text: "Read it.", usage: { input: 160, output: 3 }, stopReason: "stop" },
      },
    ],
  },
  {
    // Groq reports usage in `x_groq.usage` on the last chunk.
    name: "groq-x-groq-usage",
    provider: "groq",
    replies: [
      {
        stream: {
          server: "Groq (OpenAI-compatible /openai/v1/chat/completions)",
          source: "https://github.com/Portkey-AI/gateway/issues/1072",
          format: "chat-completions",
          body: recording("groq-x-groq-usage.1.sse"),
        },
        expect: { text: "Seven lines.", usage: { input: 45, output: 3 }, stopReason: "stop" },
      },
    ],
  },
  {
    // Moonshot's Kimi API reports usage on the choice of the final chunk.
    name: "moonshot-choice-usage",
    provider: "moonshot",
    replies: [
      {
        stream: {
          server: "Moonshot AI Kimi API (/v1/chat/completions)",
          source: "https://platform.moonshot.ai/docs/api/chat",
          format: "chat-completions",
          body: recording("moonshot-choice-usage.1.sse"),
        },
        expect: { text: "你好，笔记在这里。", usage: { input: 19, output: 13 }, stopReason: "stop" },
      },
    ],
  },
  {
    // Alibaba Model Studio (DashScope compatible mode) writes `data:` without a space.
    name: "qwen-dashscope-no-space",
    provider: "dashscope",
    replies: [
      {
        stream: {
          server: "Alibaba Cloud Model Studio, OpenAI-compatible mode (qwen-plus)",
          source: "https://www.alibabacloud.com/help/en/model-studio/compatibility-of-openai-with-dashscope",
          format: "chat-completions",
          body: recording("qwen-dashscope-no-space.1.sse"),
        },
        expect: { text: "Three items, all done.", usage: { input: 22, output: 6 }, stopReason: "stop" },
      },
    ],
  },
];
