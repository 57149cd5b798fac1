import { expect, test } from "bun:test";
import { MOCK_MODEL_ID, MOCK_PROVIDERS, mockModelsJson } from "../src/index.ts";

test("mockModelsJson defines one provider per wire format at the mock's base URL", () => {
  const json = mockModelsJson({ baseUrl: "http://127.0.0.1:1/v1" }, { apiKey: "MY_ENV", reasoning: false });
  expect(Object.keys(json.providers).sort()).toEqual(Object.values(MOCK_PROVIDERS).sort());
  const anthropic = json.providers[MOCK_PROVIDERS.anthropic]!;
  expect(anthropic).toMatchObject({
    api: "anthropic-messages",
    baseUrl: "http://127.0.0.1:1/v1",
    apiKey: "MY_ENV",
  });
  expect(anthropic.models[0]).toMatchObject({ id: MOCK_MODEL_ID, reasoning: false });
});
