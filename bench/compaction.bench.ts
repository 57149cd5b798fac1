/**
 * Compaction planning over a 100,000-entry branch built in memory: user prompts, tool
 * calls with results, assistant replies with usage, settings changes, an earlier
 * compaction and a recovery omission. Rows: the full plan (`prepareCompaction`), the
 * projection alone, and a threshold check.
 */
import { Bench } from "tinybench";
import type { AssistantMessage } from "../packages/ai/src/index.ts";
import {
  checkThreshold,
  DEFAULT_COMPACTION_SETTINGS,
  prepareCompaction,
  projectPath,
} from "../packages/compaction/src/index.ts";
import type { NewEntry, SessionEntry } from "../packages/session-store/src/index.ts";

const ENTRIES = 100_000;
const entries: SessionEntry[] = [];
let parentId: string | null = null;
const add = (entry: NewEntry): string => {
  const id = entries.length.toString(16).padStart(8, "0");
  entries.push({ ...entry, id, parentId, timestamp: "2026-01-01T00:00:00.000Z" } as SessionEntry);
  parentId = id;
  return id;
};
const usage = (input: number) => ({
  input,
  output: 200,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + 200,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});
const reply = (text: string, input: number, toolCall = false): AssistantMessage => ({
  role: "assistant",
  content: toolCall
    ? [
        {
          type: "toolCall",
          id: `c${entries.length}`,
          name: "read",
          arguments: { path: `src/f${entries.length % 500}.ts` },
        },
      ]
    : [{ type: "text", text }],
  api: "anthropic-messages",
  provider: "bench",
  model: "bench",
  usage: usage(input),
  stopReason: toolCall ? "toolUse" : "stop",
  timestamp: 0,
});

let firstOfSecondHalf = "";
while (entries.length < ENTRIES - 3) {
  const span = entries.length;
  if (span >= ENTRIES / 2 && !firstOfSecondHalf) {
    firstOfSecondHalf = add({
      type: "message",
      message: { role: "user", content: "continue", timestamp: 0 },
    });
    add({
      type: "compaction",
      summary: "s".repeat(4000),
      firstKeptEntryId: firstOfSecondHalf,
      tokensBefore: 150_000,
    });
  }
  add({
    type: "message",
    message: { role: "user", content: "please change the code ".repeat(20), timestamp: 0 },
  });
  for (let call = 0; call < 3; call++) {
    add({ type: "message", message: reply("", 40_000, true) });
    add({
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: "c",
        toolName: "read",
        content: [{ type: "text", text: "x".repeat(3000) }],
        isError: false,
        timestamp: 0,
      },
    });
  }
  if (span % 7 === 0) add({ type: "thinking_level_change", thinkingLevel: "high" });
  add({ type: "message", message: reply("done ".repeat(100), 60_000) });
}
const attempt = add({
  type: "message",
  message: { ...reply("", 0), stopReason: "error", errorMessage: "prompt is too long" },
});
add({ type: "context_edit", omit: [attempt], reason: "overflow-recovery" });

const plan = prepareCompaction(entries, DEFAULT_COMPACTION_SETTINGS);
process.stderr.write(
  `entries=${entries.length} summarize=${plan?.messagesToSummarize.length} kept-from=${plan?.firstKeptIndex} tokensBefore=${plan?.tokensBefore}\n`,
);

const bench = new Bench({ iterations: 20, warmupIterations: 3, time: 0 });
bench
  .add("prepareCompaction (100k entries)", () => {
    prepareCompaction(entries, DEFAULT_COMPACTION_SETTINGS);
  })
  .add("projectPath (100k entries)", () => {
    projectPath(entries);
  })
  .add("checkThreshold before prompt (100k entries)", () => {
    checkThreshold({ kind: "beforePrompt" }, entries, 200_000, DEFAULT_COMPACTION_SETTINGS);
  });
await bench.run();
console.table(bench.table());
