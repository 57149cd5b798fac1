import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CLIENT_NOTIFICATIONS,
  CLIENT_REQUESTS,
  SERVER_NOTIFICATIONS,
  SERVER_REQUESTS,
} from "../src/schemas.ts";

/** The repository's protocol reference, which names every message. */
const specPath = join(import.meta.dir, "..", "..", "..", "docs", "protocol-reference.md");
const spec = readFileSync(specPath, "utf8");

const known = new Set([
  ...Object.keys(CLIENT_REQUESTS),
  ...Object.keys(CLIENT_NOTIFICATIONS),
  ...Object.keys(SERVER_NOTIFICATIONS),
  ...Object.keys(SERVER_REQUESTS),
]);

/** Every slash-separated method name the spec writes in code font, plus every JSON example's method. */
function specMethodNames(): string[] {
  const names = new Set<string>();
  for (const match of spec.matchAll(/`([a-z][a-zA-Z]*(?:\/[a-zA-Z]+)+)[`:]/g)) names.add(match[1]!);
  for (const match of spec.matchAll(/"method":"([^"]+)"/g)) names.add(match[1]!);
  // Notifications the spec names in prose without a slash.
  for (const match of spec.matchAll(/`(warning|error)`(?: notification| with `threadId`)/g))
    names.add(match[1]!);
  return [...names].sort();
}

test("the spec's method and notification names are found", () => {
  const names = specMethodNames();
  expect(names).toContain("thread/start");
  expect(names).toContain("thread/turn/completed");
  expect(names).toContain("item/toolCall/requestApproval");
  expect(names).toContain("initialized");
  expect(names).toContain("warning");
  expect(names).toContain("error");
  expect(names.length).toBeGreaterThanOrEqual(40);
});

test("every method and notification named in docs/protocol-reference.md has a schema", () => {
  const missing = specMethodNames().filter((name) => !known.has(name));
  expect(missing).toEqual([]);
});

test("the issue's required method list all have schemas", () => {
  const required = [
    "initialize",
    "initialized",
    "thread/start",
    "thread/resume",
    "thread/fork",
    "thread/read",
    "thread/list",
    "thread/unsubscribe",
    "thread/archive",
    "thread/unarchive",
    "thread/delete",
    "thread/settings/update",
    "model/list",
    "turn/start",
    "turn/steer",
    "turn/interrupt",
    "turn/queue/add",
    "turn/queue/remove",
    "payload/read",
    "config/read",
    "config/write",
    "project/trust/read",
    "project/trust/set",
    "file/search",
    "command/list",
    "server/diagnostics",
    "thread/started",
    "thread/status/changed",
    "thread/replaced",
    "thread/deleted",
    "thread/turn/completed",
    "thread/tokenUsage/updated",
    "turn/started",
    "turn/completed",
    "turn/queue/updated",
    "item/started",
    "item/completed",
    "item/removed",
    "item/agentMessage/delta",
    "item/reasoning/delta",
    "warning",
    "error",
    "serverRequest/cancelled",
    "item/toolCall/requestApproval",
    "account/read",
    "account/login/apiKey",
    "account/logout",
    "account/updated",
  ];
  expect(required.filter((name) => !known.has(name))).toEqual([]);
});
