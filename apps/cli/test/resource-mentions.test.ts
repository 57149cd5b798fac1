import { describe, expect, test } from "bun:test";
import type { McpServerStatus } from "@knightcode/app-server-protocol";
import { mayMentionResources, resourceMentions } from "../src/interactive/resource-mentions.ts";

const server = (name: string, state: McpServerStatus["state"]): McpServerStatus => ({
  name,
  transport: "stdio",
  origin: "global",
  state,
  tools: [],
});
const servers = [server("docs", "ready"), server("down", "failed")];

describe("@server:uri mentions", () => {
  test("a ready server's mentions become resources in order, once each, without trailing punctuation", () => {
    const text = "see @docs:demo://a/1, then @docs:file:///x.md. and again @docs:demo://a/1";
    expect(resourceMentions(text, servers)).toEqual([
      { server: "docs", uri: "demo://a/1" },
      { server: "docs", uri: "file:///x.md" },
    ]);
  });

  test("names that are no ready server, mid-word @s and file mentions stay text", () => {
    expect(resourceMentions("@down:demo://a @notes:todo mail me@docs:demo://b @src/app.ts", servers)).toEqual(
      [],
    );
    expect(mayMentionResources("@src/app.ts and a@b:c")).toBe(false);
    expect(mayMentionResources("read @docs:demo://a")).toBe(true);
  });

  test("at most 16 resources, as turn/start accepts", () => {
    const text = Array.from({ length: 20 }, (_, n) => `@docs:demo://r/${n}`).join(" ");
    expect(resourceMentions(text, servers)).toHaveLength(16);
  });
});
