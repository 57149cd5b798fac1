import { describe, expect, test } from "bun:test";
import type { AssistantMessage } from "@knightcode/ai";
import {
  type AgentMessage,
  buildSessionContext,
  projectSession,
  type SessionEntry,
  toModelMessages,
} from "../src/index.ts";

let seq = 0;
function chain(...specs: Record<string, unknown>[]): SessionEntry[] {
  const out: SessionEntry[] = [];
  let parent: string | null = null;
  for (const spec of specs) {
    const id = (spec.id as string | undefined) ?? `e${(seq++).toString().padStart(7, "0")}`;
    out.push({
      timestamp: "2026-01-01T00:00:00.000Z",
      ...spec,
      id,
      parentId: parent,
    } as unknown as SessionEntry);
    parent = id;
  }
  return out;
}
const user = (text: string, id?: string) => ({
  type: "message",
  ...(id ? { id } : {}),
  message: { role: "user", content: text, timestamp: 1 },
});
const assistant = (text: string, model = "m1"): Record<string, unknown> => ({
  type: "message",
  message: {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "demo",
    provider: "p1",
    model,
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: 2,
  } satisfies AssistantMessage,
});
const texts = (messages: AgentMessage[]) =>
  messages.map((m) => {
    if (m.role === "user") return typeof m.content === "string" ? m.content : "?";
    if (m.role === "assistant") return m.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    if (m.role === "compactionSummary") return `summary:${m.summary}`;
    if (m.role === "branchSummary") return `branch:${m.summary}`;
    if (m.role === "custom") return `custom:${m.customType}`;
    return m.role;
  });

describe("buildSessionContext", () => {
  test("without compaction every message entry is projected in path order", () => {
    const path = chain(user("u1"), assistant("a1"), { type: "custom", customType: "state" }, user("u2"));
    expect(texts(buildSessionContext(path).messages)).toEqual(["u1", "a1", "u2"]);
  });

  test("with a compaction: summary, then entries from firstKeptEntryId up to it, then what follows", () => {
    const path = chain(
      user("u1"),
      assistant("a1"),
      user("u2", "keep0001"),
      assistant("a2"),
      { type: "compaction", id: "comp0001", summary: "S", firstKeptEntryId: "keep0001", tokensBefore: 10 },
      user("u3"),
    );
    const ctx = buildSessionContext(path);
    expect(texts(ctx.messages)).toEqual(["summary:S", "u2", "a2", "u3"]);
    expect(ctx.projection.map((p) => p.entryId)).toEqual(["comp0001", "keep0001", path[3]!.id, path[5]!.id]);
    expect(ctx.compaction?.id).toBe("comp0001");
  });

  test("only the latest compaction on the path counts; retain-none keeps nothing before it", () => {
    const path = chain(
      user("u1", "first001"),
      { type: "compaction", id: "comp0001", summary: "S1", firstKeptEntryId: "first001", tokensBefore: 1 },
      user("u2"),
      { type: "compaction", id: "comp0002", summary: "S2", firstKeptEntryId: "comp0002", tokensBefore: 1 },
      user("u3"),
    );
    expect(texts(buildSessionContext(path).messages)).toEqual(["summary:S2", "u3"]);
  });

  test("branch summaries and custom messages become context; custom entries do not", () => {
    const path = chain(
      user("u1"),
      { type: "branch_summary", summary: "B", fromId: "x" },
      { type: "custom_message", customType: "note", content: "hello", display: true },
      { type: "custom", customType: "hidden", data: 1 },
    );
    const messages = buildSessionContext(path).messages;
    expect(texts(messages)).toEqual(["u1", "branch:B", "custom:note"]);
    const model = toModelMessages(messages);
    expect(model.map((m) => m.role)).toEqual(["user", "user", "user"]);
    expect(JSON.stringify(model[1]!.content)).toContain("B");
    expect(model[2]!.content).toEqual([{ type: "text", text: "hello" }]);
  });

  test("context_edit omits and replaces entries in the projection without deleting them", () => {
    const path = chain(user("u1", "user0001"), assistant("bad", "m1"), user("u2", "user0002"), {
      type: "context_edit",
      omit: [] as string[],
      replace: [],
    });
    const bad = path[1]!.id;
    (path[3] as { omit: string[] }).omit = [bad];
    (path[3] as { replace: unknown[] }).replace = [
      { entryId: "user0002", message: { role: "user", content: "u2 edited", timestamp: 3 } },
    ];
    expect(texts(projectSession(path).map((p) => p.message))).toEqual(["u1", "u2 edited"]);
    expect(path).toHaveLength(4);
  });

  test("model, thinking level and approval mode come from the branch; an invalid mode restores as ask", () => {
    const path = chain(
      { type: "model_change", provider: "p0", modelId: "m0" },
      { type: "thinking_level_change", thinkingLevel: "high" },
      { type: "approval_mode", mode: "autoEdit" },
    );
    let ctx = buildSessionContext(path);
    expect(ctx.model).toEqual({ provider: "p0", modelId: "m0" });
    expect(ctx.thinkingLevel).toBe("high");
    expect(ctx.approvalMode).toBe("autoEdit");
    ctx = buildSessionContext([
      ...path,
      ...chain(assistant("x", "m9"), { type: "approval_mode", mode: "yolo" }),
    ]);
    expect(ctx.model).toEqual({ provider: "p1", modelId: "m9" });
    expect(ctx.approvalMode).toBe("ask");
    expect(buildSessionContext([]).approvalMode).toBeUndefined();
  });

  test("bash executions become user text unless excluded from context", () => {
    const msgs: AgentMessage[] = [
      {
        role: "bashExecution",
        command: "ls",
        output: "a",
        exitCode: 2,
        cancelled: false,
        truncated: false,
        timestamp: 1,
      },
      {
        role: "bashExecution",
        command: "secret",
        output: "",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        excludeFromContext: true,
        timestamp: 1,
      },
    ];
    const out = toModelMessages(msgs);
    expect(out).toHaveLength(1);
    expect(JSON.stringify(out[0]!.content)).toContain("exited with code 2");
  });
});
