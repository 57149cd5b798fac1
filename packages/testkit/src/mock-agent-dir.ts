/** An agent dir whose models are the mock's and whose default model is one of them. */
import { MOCK_MODEL_ID, MOCK_PROVIDERS, mockModelsJson } from "./models-json.ts";
import { type TempAgentDir, tempAgentDir } from "./temp-agent-dir.ts";

/**
 * A temp agent dir with `mockModelsJson(mock)` as its models.json and the mock's Chat
 * Completions model as the default in its settings (`settings` adds to or overrides them),
 * so a run that names no model reaches the mock.
 */
export function mockDefaultAgentDir(
  mock: { baseUrl: string },
  settings: Record<string, unknown> = {},
): Promise<TempAgentDir> {
  return tempAgentDir({
    models: mockModelsJson(mock),
    settings: { defaultProvider: MOCK_PROVIDERS.completions, defaultModel: MOCK_MODEL_ID, ...settings },
  });
}
