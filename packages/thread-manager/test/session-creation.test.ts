import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { projectDirName, SessionFile, sessionsRoot } from "@knightcode/session-store";
import { textReply } from "@knightcode/testkit";
import { createHarness } from "./support/harness.ts";

const linesOf = (path: string) =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("fork copies", () => {
  test("a copied retain-none compaction records the copy's own new ID, and references follow the copy", async () => {
    await using h = await createHarness();
    const dir = join(sessionsRoot(h.dir.agentDir), projectDirName(h.dir.cwd));
    const source = await SessionFile.create({ dir, cwd: h.dir.cwd });
    source.append({ type: "model_change", provider: h.model.provider, modelId: h.model.id });
    const start = source.append({ type: "turn_start", startedAt: 1 });
    source.append({ type: "message", message: { role: "user", content: "first question", timestamp: 2 } });
    source.append({ type: "turn_end", turnId: start.id, outcome: "completed", completedAt: 3 });
    const own = source.reserveEntryId();
    source.append(
      { type: "compaction", summary: "SUMMARY-OF-EVERYTHING", firstKeptEntryId: own, tokensBefore: 10 },
      { id: own },
    );
    source.sync();
    source.close();

    const { thread } = await h.manager.forkThread({ threadId: source.id }, h.desktop());
    const copied = linesOf(thread.path!);
    const compaction = copied.find((e) => e.type === "compaction")!;
    expect(compaction.id).not.toBe(own);
    expect(compaction.firstKeptEntryId).toBe(compaction.id);
    const copiedStart = copied.find((e) => e.type === "turn_start")!;
    expect(copied.find((e) => e.type === "turn_end")?.turnId).toBe(copiedStart.id);

    // The fork's context starts after its own compaction: the summary, not the summarized question.
    h.server.enqueue(textReply("ok"));
    await h.manager.startTurn({ threadId: thread.id, text: "go on" }, h.desktop());
    const request = await h.server.waitForRequest(0);
    expect(request.rawBody.includes("SUMMARY-OF-EVERYTHING")).toBe(true);
    expect(request.rawBody.includes("first question")).toBe(false);
    await h.waitFor((n) => n.method === "thread/turn/completed");
  });
});
