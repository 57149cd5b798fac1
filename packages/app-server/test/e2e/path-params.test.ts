/**
 * Every param that names a file system path refuses a NUL byte and an unpaired UTF-16
 * surrogate with `invalidParams` and the field's path, on both transports, before any
 * handler runs. The table is checked against the schemas, so a new path param without
 * a row here fails.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type ClientRequestMethod,
  PATH_PATTERN,
  PATH_PATTERN_MESSAGE,
  validateRequestParams,
} from "@knightcode/app-server-protocol";
import { CLIENT_REQUESTS } from "@knightcode/app-server-protocol/schemas";
import { E2E_TIMEOUT, TARGETS } from "./harness.ts";

type Build = (bad: string) => Record<string, unknown>;

/** Each path param: the method, the field's JSON pointer, and params with `bad` in that field. */
const PATH_PARAMS: [ClientRequestMethod, string, Build][] = [
  ["thread/start", "/cwd", (bad) => ({ cwd: bad })],
  ["thread/list", "/cwd", (bad) => ({ cwd: bad })],
  ["command/list", "/cwd", (bad) => ({ cwd: bad })],
  ["mcpServer/list", "/cwd", (bad) => ({ cwd: bad })],
  ["config/read", "/cwd", (bad) => ({ cwd: bad })],
  ["config/write", "/cwd", (bad) => ({ scope: "project", key: "theme", value: "dark", cwd: bad })],
  ["project/trust/read", "/cwd", (bad) => ({ cwd: bad })],
  ["project/trust/set", "/cwd", (bad) => ({ cwd: bad, trusted: true })],
  ["file/search", "/cwd", (bad) => ({ cwd: bad, query: "x" })],
  ["worktree/list", "/cwd", (bad) => ({ cwd: bad })],
  ["turn/start", "/images/0/path", (bad) => ({ threadId: "t", text: "hi", images: [{ path: bad }] })],
  [
    "turn/steer",
    "/images/0/path",
    (bad) => ({ threadId: "t", expectedTurnId: "u", text: "hi", images: [{ path: bad }] }),
  ],
  ["turn/queue/add", "/images/0/path", (bad) => ({ threadId: "t", text: "hi", images: [{ path: bad }] })],
];

const BAD_VALUES: [string, string][] = [
  ["a NUL byte", "/tmp\u0000x"],
  ["an unpaired surrogate", "/tmp/\ud800x"],
];

type SchemaNode = {
  type?: string;
  pattern?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
};

/** JSON pointers of the path strings in a params schema (array items as index 0); names of string fields too. */
function walk(node: SchemaNode, at: string, out: { paths: string[]; named: string[] }): void {
  if (node.type === "string" && node.pattern === PATH_PATTERN) out.paths.push(at);
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    if (child.type === "string" && /^(cwd|path|dir|root|file)$/i.test(key)) out.named.push(`${at}/${key}`);
    walk(child, `${at}/${key}`, out);
  }
  if (node.items) walk(node.items, `${at}/0`, out);
  for (const branch of node.anyOf ?? []) walk(branch, at, out);
}

describe("path params in the schemas", () => {
  test("every string field named like a path carries the path pattern, and each has a row in the table", () => {
    const found: string[] = [];
    for (const [method, entry] of Object.entries(CLIENT_REQUESTS)) {
      const out = { paths: [] as string[], named: [] as string[] };
      walk(entry.params as SchemaNode, "", out);
      expect(out.named.filter((p) => !out.paths.includes(p))).toEqual([]);
      for (const path of new Set(out.paths)) found.push(`${method} ${path}`);
    }
    expect(found.sort()).toEqual(PATH_PARAMS.map(([m, p]) => `${m} ${p}`).sort());
  });

  test("a path with a surrogate pair (an emoji) or other non-ASCII text stays valid", () => {
    expect(validateRequestParams("file/search", { cwd: "/tmp/😀/ünï", query: "x" })?.ok).toBe(true);
  });
});

for (const target of TARGETS) {
  describe(`[${target.name}] path params`, () => {
    for (const [method, pointer, build] of PATH_PARAMS) {
      test(
        `${method} ${pointer}: a NUL byte or an unpaired surrogate is invalidParams naming the field, and nothing is written`,
        async () => {
          await using server = await target.start();
          for (const [, bad] of BAD_VALUES) {
            try {
              await server.client.request(method, build(bad) as never);
              throw new Error("expected invalidParams");
            } catch (error) {
              const e = error as { code: string; data?: { errors: { path: string; message: string }[] } };
              expect(e.code).toBe("invalidParams");
              expect(e.data?.errors).toContainEqual({ path: pointer, message: PATH_PATTERN_MESSAGE });
            }
          }
          expect(existsSync(join(server.agent.agentDir, "sessions"))).toBe(false);
          // The connection keeps serving.
          expect((await server.client.request("model/list", {})).models.length).toBeGreaterThan(0);
        },
        E2E_TIMEOUT,
      );
    }
  });
}
