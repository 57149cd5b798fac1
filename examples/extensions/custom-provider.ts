/**
 * A model provider from an extension: a local OpenAI-compatible server (Ollama,
 * llama.cpp, vLLM) at `LOCAL_LLM_BASE_URL` (default Ollama's). Its models appear in
 * `model/list` once a thread has loaded the extension, and can run turns.
 */
import type { ExtensionAPI } from "@knightcode/extensions";

export default function customProvider(knightcode: ExtensionAPI) {
  const baseUrl = process.env.LOCAL_LLM_BASE_URL ?? "http://127.0.0.1:11434/v1";
  knightcode.registerProvider("local-llm", {
    baseUrl,
    api: "openai-completions",
    models: [
      {
        id: process.env.LOCAL_LLM_MODEL ?? "llama3.2",
        name: "Local model",
        contextWindow: 32_768,
        maxTokens: 4_096,
      },
    ],
  });
}
