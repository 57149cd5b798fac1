import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerNotification } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { createHarness, methods } from "./support/harness.ts";

type Item = Extract<ServerNotification, { method: "item/completed" }>["params"]["item"];
const completed = (list: ServerNotification[]): Item[] =>
  list.flatMap((n) => (n.method === "item/completed" ? [n.params.item] : []));

describe("tool calls", () => {
  test("two parallel tool calls keep their call IDs and a completed edit reports fileChanges", async () => {
    await using h = await createHarness();
    const caller = h.desktop();
    writeFileSync(join(h.dir.cwd, "a.txt"), "hello world\n");
    const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, approvalMode: "fullAccess" }, caller);
    h.server.enqueue(
      toolCallReply(
        { name: "ls", arguments: { path: "." }, id: "call_ls" },
        {
          name: "edit",
          arguments: { path: "a.txt", edits: [{ oldText: "world", newText: "there" }] },
          id: "call_edit",
        },
      ),
      textReply("Done."),
    );
    await h.manager.startTurn({ threadId: thread.id, text: "edit it" }, caller);
    await h.waitFor((n) => n.method === "thread/turn/completed");
    expect(readFileSync(join(h.dir.cwd, "a.txt"), "utf8")).toBe("hello there\n");
    const seen = h.received("c1");
    const items = completed(seen);
    expect(items.map((i) => ("id" in i ? i.id : ""))).toContain("call_ls");
    const ls = items.find((i) => "id" in i && i.id === "call_ls");
    const edit = items.find((i) => "id" in i && i.id === "call_edit");
    expect(ls).toMatchObject({ type: "toolCall", toolName: "ls", status: "completed" });
    expect(ls).not.toHaveProperty("fileChanges");
    expect(edit).toMatchObject({ type: "toolCall", toolName: "edit", status: "completed" });
    const changes = edit && "fileChanges" in edit ? edit.fileChanges : undefined;
    expect(changes?.length).toBe(1);
    expect(changes?.[0]?.kind).toBe("modify");
    expect(changes?.[0]?.path).toEndWith("a.txt");
    expect(changes?.[0]?.diff).toContain("+hello there");
    // Both calls started (while streaming) before either completed; indexes are top-level positions.
    const order = seen.flatMap((n) =>
      (n.method === "item/started" || n.method === "item/completed") && "id" in n.params.item
        ? [`${n.method === "item/started" ? "s" : "c"}:${n.params.item.id}`]
        : [],
    );
    expect(order.indexOf("s:call_edit")).toBeLessThan(order.indexOf("c:call_ls"));
    expect(ls && "index" in ls ? ls.index : -1).toBe(1);
    expect(edit && "index" in edit ? edit.index : -1).toBe(2);
    // Usage after each finalized reply: one for the tool-call reply, one for the final reply.
    expect(methods(seen).filter((m) => m === "thread/tokenUsage/updated").length).toBe(2);
  });
});
