/**
 * `BranchProjection` keeps the branch's model messages and context size per leaf and
 * extends them on append: after every step of a transcript's life (turns, usage, custom
 * messages, a context edit, a compaction without usage after it, a move of the leaf to an
 * older entry) it must answer exactly what a projection of the whole branch answers.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AssistantMessage, emptyAssistantMessage, type Model } from "@knightcode/ai";
import { branchContextTokens } from "@knightcode/compaction";
import { buildSessionContext, SessionFile, toModelMessages } from "@knightcode/session-store";
import { BranchProjection } from "../src/history/branch-projection.ts";
import { currentContextTokens } from "../src/turns/compaction-wiring.ts";

const model = { id: "m", provider: "p", api: "openai-completions" } as Model;

function reply(text: string, totalTokens: number, stopReason: AssistantMessage["stopReason"] = "stop") {
  const message = emptyAssistantMessage(model);
  return {
    ...message,
    content: [{ type: "text" as const, text }],
    usage: {
      ...message.usage,
      input: totalTokens - 1,
      output: 1,
      totalTokens,
      cost: { ...message.usage.cost, total: 0.25 },
    },
    stopReason,
  };
}

describe("BranchProjection", () => {
  test("answers what a projection of the whole branch answers, after every kind of change", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-branch-projection-"));
    try {
      const session = await SessionFile.create({ dir, cwd: "/p" });
      const projection = new BranchProjection(session);
      const check = () => {
        const branch = session.branch();
        expect(projection.messages()).toEqual(toModelMessages(buildSessionContext(branch).messages));
        const size = projection.contextSize();
        expect(size.tokens).toBe(branchContextTokens(branch));
        expect(size.known ? size.tokens : undefined).toBe(currentContextTokens(branch));
        // billed: every reply on the branch, omitted ones too, and the compaction's own usage
        const billed = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
        for (const entry of branch) {
          const usage =
            entry.type === "message" && entry.message.role === "assistant"
              ? entry.message.usage
              : entry.type === "compaction"
                ? entry.usage
                : undefined;
          if (!usage) continue;
          billed.input += usage.input;
          billed.output += usage.output;
          billed.cost += usage.cost.total;
        }
        expect(projection.usageTotals()).toEqual(billed);
      };
      check();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const start = session.append({ type: "turn_start", startedAt: i });
        session.append({ type: "message", message: { role: "user", content: `q${i}`, timestamp: i } });
        check();
        ids.push(
          session.append({ type: "message", message: reply(`a${i} `.repeat(i + 1), 100 * (i + 1)) }).id,
        );
        session.append({ type: "turn_end", turnId: start.id, outcome: "completed", completedAt: i });
        check();
      }
      // several appends between asks, an aborted reply (no reliable usage) and a custom message
      session.append({ type: "message", message: reply("partial", 999, "aborted") });
      session.append({
        type: "custom_message",
        customType: "note",
        content: "from an extension",
        display: true,
      });
      session.append({ type: "message", message: { role: "user", content: "more", timestamp: 9 } });
      check();
      // a context edit reshapes what came before, and one naming an entry appended later
      session.append({ type: "context_edit", omit: [ids[1]!] });
      check();
      const reserved = session.reserveEntryId();
      session.append({
        type: "context_edit",
        replace: [{ entryId: reserved, message: { role: "user", content: "replaced", timestamp: 0 } }],
      });
      check();
      session.append(
        { type: "message", message: { role: "user", content: "original", timestamp: 0 } },
        { id: reserved },
      );
      check();
      // a compaction: no usage after it yet (size unknown), then a reply reports it
      session.append({
        type: "compaction",
        summary: "sum",
        firstKeptEntryId: ids[3]!,
        tokensBefore: 500,
        usage: reply("", 7).usage,
      });
      check();
      session.append({ type: "message", message: { role: "user", content: "after", timestamp: 10 } });
      check();
      session.append({ type: "message", message: reply("fresh", 42) });
      check();
      // the leaf moves back to an older entry, and the branch grows from there
      session.setLeaf(ids[0]!);
      check();
      session.append({ type: "branch_summary", fromId: ids[3]!, summary: "left behind" });
      session.append({ type: "message", message: { role: "user", content: "elsewhere", timestamp: 11 } });
      check();
      // the copies handed out are the caller's to change
      projection.messages().pop();
      check();
      session.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
