import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { validateRequestParams } from "../src/index.ts";
import {
  CLIENT_REQUESTS,
  GENERATED_MARKER,
  methodTypeName,
  renderProtocolSchema,
  renderValidatorsModule,
  SCHEMA_FILE_NAME,
  VALIDATORS_FILE,
  validateSchema,
} from "../src/schemas.ts";

const committedPath = join(import.meta.dir, "..", SCHEMA_FILE_NAME);

describe("generated app-server.schema.json", () => {
  test("regenerating reproduces the committed file byte for byte", () => {
    const committed = readFileSync(committedPath, "utf8");
    expect(renderProtocolSchema()).toBe(committed);
  });

  test("carries the generated-file marker naming the command", () => {
    const schema = JSON.parse(readFileSync(committedPath, "utf8")) as { $comment: string };
    expect(schema.$comment).toBe(GENERATED_MARKER);
    expect(schema.$comment).toContain("bun run generate:schema");
  });

  test("is a valid JSON Schema document whose every definition compiles", () => {
    const schema = JSON.parse(readFileSync(committedPath, "utf8")) as {
      definitions: Record<string, unknown>;
    };
    const ajv = new Ajv({ strict: false });
    ajv.addSchema(schema, "protocol");
    const names = Object.keys(schema.definitions);
    expect(names.length).toBeGreaterThan(60);
    for (const name of names) expect(() => ajv.getSchema(`protocol#/definitions/${name}`)).not.toThrow();
  });

  test("method names map to type names", () => {
    expect(methodTypeName("thread/settings/update")).toBe("ThreadSettingsUpdate");
    expect(methodTypeName("item/agentMessage/delta")).toBe("ItemAgentMessageDelta");
  });
});

describe("generated validators", () => {
  test("regenerating reproduces src/generated/validators.ts byte for byte", () => {
    const committed = readFileSync(join(import.meta.dir, "..", VALIDATORS_FILE), "utf8");
    expect(renderValidatorsModule()).toBe(committed);
  });

  test("the pre-compiled validators agree with the schemas on the corpus", () => {
    const cases = JSON.parse(
      readFileSync(join(import.meta.dir, "corpus", "requests.json"), "utf8"),
    ) as Record<string, { valid: unknown[]; invalid: unknown[] }>;
    for (const [method, { valid, invalid }] of Object.entries(cases)) {
      const schema = CLIENT_REQUESTS[method as keyof typeof CLIENT_REQUESTS].params;
      for (const params of [...valid, ...invalid]) {
        expect({ method, params, result: validateRequestParams(method, params) }).toEqual({
          method,
          params,
          result: validateSchema(schema, params),
        });
      }
    }
  });
});
