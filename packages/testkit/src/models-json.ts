/** Provider names `mockModelsJson` defines, one per wire format. */
export const MOCK_PROVIDERS = {
  completions: "mock-completions",
  responses: "mock-responses",
  anthropic: "mock-anthropic",
} as const;

/** The model ID every mock provider offers. */
export const MOCK_MODEL_ID = "mock-model";

/** Options for `mockModelsJson`. */
export interface MockModelsJsonOptions {
  /** Literal key, env-var name or `!command` (default `"test-key"`). */
  apiKey?: string;
  reasoning?: boolean;
  contextWindow?: number;
  maxTokens?: number;
  /** Dollars per million tokens. */
  cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

/**
 * A `models.json` object with one provider per wire format, all pointing at the mock:
 * `mock-completions` (openai-completions), `mock-responses` (openai-responses) and
 * `mock-anthropic` (anthropic-messages), each offering model `mock-model`.
 */
export function mockModelsJson(server: { baseUrl: string }, options: MockModelsJsonOptions = {}) {
  const model = {
    id: MOCK_MODEL_ID,
    name: "Mock Model",
    reasoning: options.reasoning ?? true,
    input: ["text", "image"],
    contextWindow: options.contextWindow ?? 200_000,
    maxTokens: options.maxTokens ?? 8_192,
    cost: options.cost ?? { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  };
  const provider = (api: string) => ({
    baseUrl: server.baseUrl,
    api,
    apiKey: options.apiKey ?? "test-key",
    models: [model],
  });
  return {
    providers: {
      [MOCK_PROVIDERS.completions]: provider("openai-completions"),
      [MOCK_PROVIDERS.responses]: provider("openai-responses"),
      [MOCK_PROVIDERS.anthropic]: provider("anthropic-messages"),
    },
  };
}
