/** Local OpenAI-compatible servers: Ollama, vLLM, llama.cpp's llama-server. */
import { allOf, toolResultsFor } from "./checks.ts";
import { recording } from "./recording.ts";
import type { StreamCase } from "./types.ts";

const OLLAMA_COMPAT = "https://docs.ollama.com/api/openai-compatibility";

export const LOCAL_CASES: StreamCase[] = [
  {
    name: "ollama-text",
    provider: "ollama",
    replies: [
      {
        stream: {
          server: "Ollama (OpenAI-compatible /v1/chat/completions)",
          source: OLLAMA_COMPAT,
          format: "chat-completions",
          body: recording("ollama-text.1.sse"),
        },
        expect: {
          text: "Les notes disent : « café à 10 h ».",
          usage: { input: 37, output: 12 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // ollama/ollama#15457: every call of a parallel batch arrives at index 0, each with its own id.
    name: "ollama-reused-index",
    provider: "ollama",
    replies: [
      {
        stream: {
          server: "Ollama 0.20 (OpenAI-compatible /v1/chat/completions)",
          source: "https://github.com/ollama/ollama/issues/15457",
          format: "chat-completions",
          body: recording("ollama-reused-index.1.sse"),
        },
        expect: {
          text: "",
          toolCalls: [
            { name: "read", arguments: { path: "notes.txt" } },
            { name: "ls", arguments: { path: "." } },
          ],
          usage: { input: 211, output: 40 },
          stopReason: "toolUse",
        },
      },
      {
        accept: allOf(toolResultsFor(2)),
        stream: {
          server: "Ollama 0.20 (OpenAI-compatible /v1/chat/completions)",
          source: OLLAMA_COMPAT,
          format: "chat-completions",
          body: recording("ollama-reused-index.2.sse"),
        },
        expect: { text: "Both tools ran.", stopReason: "stop" },
      },
    ],
  },
  {
    // Ollama's thinking models stream their reasoning in `delta.reasoning`.
    name: "ollama-reasoning",
    provider: "ollama",
    reasoning: true,
    replies: [
      {
        stream: {
          server: "Ollama 0.12 (OpenAI-compatible /v1/chat/completions, thinking model)",
          source: "https://docs.ollama.com/capabilities/thinking",
          format: "chat-completions",
          body: recording("ollama-reasoning.1.sse"),
        },
        expect: {
          text: "They list three tasks.",
          reasoning: "The user wants a summary.",
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // vllm-project/vllm#18412: streamed tool calls carry an index but never an id.
    name: "vllm-parallel-no-ids",
    provider: "vllm",
    replies: [
      {
        stream: {
          server: "vLLM 0.8 (OpenAI-compatible server, hermes tool parser)",
          source: "https://github.com/vllm-project/vllm/issues/18412",
          format: "chat-completions",
          body: recording("vllm-parallel-no-ids.1.sse"),
        },
        expect: {
          text: "",
          toolCalls: [
            { name: "read", arguments: { path: "notes.txt" } },
            { name: "ls", arguments: { path: "." } },
          ],
          usage: { input: 402, output: 58 },
          stopReason: "toolUse",
        },
      },
      {
        accept: toolResultsFor(2),
        stream: {
          server: "vLLM 0.8 (OpenAI-compatible server)",
          source: "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html",
          format: "chat-completions",
          body: recording("vllm-parallel-no-ids.2.sse"),
        },
        expect: { text: "Read and listed.", stopReason: "stop" },
      },
    ],
  },
  {
    // vLLM's reasoning parsers put the chain of thought in `reasoning_content`.
    name: "vllm-reasoning-content",
    provider: "vllm",
    reasoning: true,
    replies: [
      {
        stream: {
          server: "vLLM (OpenAI-compatible server, --reasoning-parser deepseek_r1)",
          source: "https://docs.vllm.ai/en/latest/features/reasoning_outputs.html",
          format: "chat-completions",
          body: recording("vllm-reasoning-content.1.sse"),
        },
        expect: {
          text: "9.8 is greater.",
          reasoning: "9.11 < 9.8 because 0.11 < 0.8.",
          usage: { input: 19, output: 41 },
          stopReason: "stop",
        },
      },
    ],
  },
  {
    // llama-server's chunks carry its own `timings` object, which the client must ignore.
    name: "llama-cpp-text-timings",
    provider: "llama-cpp",
    replies: [
      {
        stream: {
          server: "llama.cpp llama-server (/v1/chat/completions)",
          source: "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md",
          format: "chat-completions",
          body: recording("llama-cpp-text-timings.1.sse"),
        },
        expect: { text: "日本語のメモです。", usage: { input: 28, output: 6 }, stopReason: "stop" },
      },
    ],
  },
  {
    // llama-server reports a failure after the stream has begun as an `error:` line, not `data:`.
    name: "llama-cpp-context-error",
    provider: "llama-cpp",
    replies: [
      {
        stream: {
          server: "llama.cpp llama-server (/v1/chat/completions, prompt beyond --ctx-size)",
          source: "https://github.com/ggml-org/llama.cpp/pull/15780",
          format: "chat-completions",
          body: recording("llama-cpp-context-error.1.sse"),
        },
        expect: { text: "", stopReason: "error", errorKind: "contextOverflow" },
      },
    ],
  },
  {
    // llama-server with --jinja streams OpenAI-style tool calls, the arguments in pieces.
    name: "llama-cpp-tool-call",
    provider: "llama-cpp",
    replies: [
      {
        stream: {
          server: "llama.cpp llama-server --jinja (/v1/chat/completions)",
          source: "https://github.com/ggml-org/llama.cpp/blob/master/docs/function-calling.md",
          format: "chat-completions",
          body: recording("llama-cpp-tool-call.1.sse"),
        },
        expect: {
          text: "",
          toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }],
          usage: { input: 310, output: 22 },
          stopReason: "toolUse",
        },
      },
      {
        accept: toolResultsFor(1),
        stream: {
          server: "llama.cpp llama-server (/v1/chat/completions)",
          source: "https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md",
          format: "chat-completions",
          body: recording("llama-cpp-tool-call.2.sse"),
        },
        expect: { text: "The notes are short.", usage: { input: 350, output: 5 }, stopReason: "stop" },
      },
    ],
  },
];
