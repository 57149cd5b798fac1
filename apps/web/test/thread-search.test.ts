import { describe, expect, test } from "bun:test";
import type { ThreadSummary } from "@knightcode/app-server-protocol";
import { matchesSearch, statusLabel } from "../src/client/thread-search.ts";

const thread: ThreadSummary = {
  id: "0199-abc",
  cwd: "/p",
  title: "Fix the login form",
  name: "auth work",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  archived: false,
  status: { type: "idle" },
};

describe("thread search", () => {
  test("every word must appear in the title, the name or the ID, in any case", () => {
    expect(matchesSearch(thread, "")).toBe(true);
    expect(matchesSearch(thread, "LOGIN fix")).toBe(true);
    expect(matchesSearch(thread, "auth")).toBe(true);
    expect(matchesSearch(thread, "abc")).toBe(true);
    expect(matchesSearch(thread, "login signup")).toBe(false);
  });

  test("status labels name what a thread waits on", () => {
    expect(statusLabel({ type: "active", waitingOn: ["approval"] })).toBe("waiting: approval");
    expect(statusLabel({ type: "active", waitingOn: [] })).toBe("running");
    expect(statusLabel({ type: "notLoaded" })).toBe("");
    expect(statusLabel({ type: "systemError", message: "lock lost" })).toBe("error");
  });
});
