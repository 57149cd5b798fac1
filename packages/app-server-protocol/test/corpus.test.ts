import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { classifyMessage, validateRequestParams, validateServerRequest } from "../src/index.ts";
import {
  CLIENT_REQUESTS,
  SERVER_NOTIFICATIONS,
  SERVER_REQUESTS,
  validateNotificationParams,
  validateRequestResult,
} from "../src/schemas.ts";

const corpus = join(import.meta.dir, "corpus");
const load = <T>(name: string) => JSON.parse(readFileSync(join(corpus, name), "utf8")) as T;

type Cases = Record<
  string,
  { valid: unknown[]; invalid: unknown[]; results?: unknown[]; invalidResults?: unknown[] }
>;
const requests = load<Cases>("requests.json");
const notifications = load<Cases>("notifications.json");
const serverRequests = load<Cases>("server-requests.json");

describe("wire corpus", () => {
  test("every client request, server notification and server request has valid and invalid cases", () => {
    for (const [table, cases] of [
      [CLIENT_REQUESTS, requests],
      [SERVER_NOTIFICATIONS, notifications],
      [SERVER_REQUESTS, serverRequests],
    ] as const) {
      for (const method of Object.keys(table)) {
        expect({ method, valid: (cases[method]?.valid.length ?? 0) > 0 }).toEqual({ method, valid: true });
        expect({ method, invalid: (cases[method]?.invalid.length ?? 0) > 0 }).toEqual({
          method,
          invalid: true,
        });
      }
    }
  });

  for (const [method, cases] of Object.entries(requests)) {
    test(`${method}: valid params and results validate; invalid params yield paths`, () => {
      for (const params of cases.valid)
        expect(validateRequestParams(method, params)).toEqual({ ok: true, value: params });
      for (const params of cases.invalid) {
        const result = validateRequestParams(method, params);
        expect(result?.ok).toBe(false);
        if (result?.ok === false) {
          expect(result.issues.length).toBeGreaterThan(0);
          for (const issue of result.issues) {
            expect(typeof issue.path).toBe("string");
            expect(issue.message.length).toBeGreaterThan(0);
          }
        }
      }
      for (const value of cases.results ?? []) expect(validateRequestResult(method, value)?.ok).toBe(true);
    });
  }

  for (const [method, cases] of Object.entries(notifications)) {
    test(`${method}: notification params validate or fail as expected`, () => {
      for (const params of cases.valid) expect(validateNotificationParams(method, params)?.ok).toBe(true);
      for (const params of cases.invalid) expect(validateNotificationParams(method, params)?.ok).toBe(false);
    });
  }

  test("item/toolCall/requestApproval params and results, including the 4,000-character decline bound", () => {
    const cases = serverRequests["item/toolCall/requestApproval"]!;
    for (const params of cases.valid)
      expect(validateServerRequest("item/toolCall/requestApproval", "params", params)?.ok).toBe(true);
    for (const params of cases.invalid)
      expect(validateServerRequest("item/toolCall/requestApproval", "params", params)?.ok).toBe(false);
    for (const value of cases.results ?? [])
      expect(validateServerRequest("item/toolCall/requestApproval", "result", value)?.ok).toBe(true);
    for (const value of cases.invalidResults ?? [])
      expect(validateServerRequest("item/toolCall/requestApproval", "result", value)?.ok).toBe(false);
  });

  test("extension/requestDialog params and results: a kind it knows, a string, boolean or null answer", () => {
    const cases = serverRequests["extension/requestDialog"]!;
    for (const params of cases.valid)
      expect(validateServerRequest("extension/requestDialog", "params", params)?.ok).toBe(true);
    for (const params of cases.invalid)
      expect(validateServerRequest("extension/requestDialog", "params", params)?.ok).toBe(false);
    for (const value of cases.results ?? [])
      expect(validateServerRequest("extension/requestDialog", "result", value)?.ok).toBe(true);
    for (const value of cases.invalidResults ?? [])
      expect(validateServerRequest("extension/requestDialog", "result", value)?.ok).toBe(false);
  });

  test("invalid params report the failing path", () => {
    expect(validateRequestParams("thread/list", { limit: 0 })).toEqual({
      ok: false,
      issues: [{ path: "/limit", message: "must be >= 1" }],
    });
    expect(validateRequestParams("turn/start", { threadId: "t" })).toEqual({
      ok: false,
      issues: [{ path: "", message: "missing required property 'text'" }],
    });
  });

  test("unknown methods have no validator", () => {
    expect(validateRequestParams("thread/explode", {})).toBeNull();
    expect(validateNotificationParams("thread/explode", {})).toBeNull();
  });
});

describe("spec examples", () => {
  const spec = readFileSync(join(import.meta.dir, "..", "..", "..", "docs", "protocol-reference.md"), "utf8");
  const fromSpec = [...spec.matchAll(/```json\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1]!
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown),
  );
  const files = readdirSync(join(corpus, "spec-examples")).sort();
  const fixtures = files.map((name) => load<unknown>(join("spec-examples", name)));

  test("the fixtures are exactly the JSON examples of docs/protocol-reference.md", () => {
    expect(fixtures).toEqual(fromSpec);
  });

  for (const [index, name] of files.entries()) {
    test(`${name} is a well-formed message whose params validate`, () => {
      const message = fixtures[index];
      const kind = classifyMessage(message);
      expect(kind === null).toBe(false);
      const { method, params } = message as { method: string; params: unknown };
      const result =
        kind?.kind === "request"
          ? validateRequestParams(method, params)
          : validateNotificationParams(method, params);
      expect(result?.ok).toBe(true);
    });
  }
});
