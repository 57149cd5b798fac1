import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLocalOperations } from "@knightcode/agent";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { createHarness, type Harness } from "./support/harness.ts";

/** An `autoEdit` turn whose model writes `~/notes.txt`; any approval is declined at once. */
async function homeWriteTurn(h: Harness) {
  h.onApproval = (approval) => approval.answer({ decision: "decline" });
  const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, approvalMode: "autoEdit" }, h.desktop());
  h.server.enqueue(
    toolCallReply({ name: "write", arguments: { path: "~/notes.txt", content: "kept" }, id: "call_home" }),
    textReply("done"),
  );
  const mark = h.events.length;
  await h.manager.startTurn({ threadId: thread.id, text: "note it" }, h.desktop());
  await h.waitFor((n) => n.method === "thread/turn/completed", mark);
}

describe("tool gate", () => {
  test("a ~/ write landing inside the workspace (the tools' home is the project) runs without asking in autoEdit", async () => {
    await using h = await createHarness({
      manager: (dir) => ({ toolOperations: createLocalOperations({ homeDir: dir.cwd }) }),
    });
    await homeWriteTurn(h);
    expect(h.approvals).toEqual([]);
    expect(readFileSync(join(h.dir.cwd, "notes.txt"), "utf8")).toBe("kept");
  });

  test("a ~/ write landing outside the workspace asks with a reason even in autoEdit, and the home is not written on decline", async () => {
    await using h = await createHarness({
      manager: (dir) => {
        const home = join(dir.root, "home");
        mkdirSync(home);
        return { homeDir: home };
      },
    });
    await homeWriteTurn(h);
    expect(h.approvals.length).toBe(1);
    expect(h.approvals[0]?.params).toMatchObject({ toolName: "write", itemId: "call_home" });
    expect(h.approvals[0]?.params.reason).toBeString();
    expect(existsSync(join(h.dir.root, "home", "notes.txt"))).toBe(false);
  });
});
