/**
 * Recovery ordering with a real agent run against the mock model: a small test runtime
 * persists messages as the agent finalizes them, forwards turn_end/agent_end to
 * "extension" hooks, then executes the recovery plan. The log records hook calls and
 * persisted entries in the order they happen.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "@knightcode/agent";
import { type AssistantMessage, streamModel } from "@knightcode/ai";
import { type AgentMessage, SessionFile, toModelMessages } from "@knightcode/session-store";
import { type MockScript, textReply } from "@knightcode/testkit";
import type { CompactionHooks } from "../src/hooks.ts";
import { executeRecoveryPlan, omissionEdit, type RecoveryResult, selectRecovery } from "../src/recovery.ts";
import { runCompaction } from "../src/run-compaction.ts";
import { sessionFilePort } from "../src/session-port.ts";
import { assistant, usage, user } from "./helpers.ts";
import { type MockSummarizer, mockSummarizer, promptOf } from "./mock-model.ts";

const settings = { enabled: true, reserveTokens: 1000, keepRecentTokens: 150 };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kc-recovery-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  log: string[];
  file: SessionFile;
  result: RecoveryResult | undefined;
}

async function runWithRecovery(mock: MockSummarizer, replies: MockScript[]): Promise<Run> {
  const file = await SessionFile.create({ dir, cwd: dir });
  for (let i = 0; i < 3; i++) {
    file.append({ type: "message", message: user(400) });
    file.append({ type: "message", message: assistant(400, { usage: usage(1000 * (i + 1)) }) });
  }
  const log: string[] = [];
  const hooks: CompactionHooks = {
    session_before_compact: (event) => {
      log.push(`hook:session_before_compact:${event.reason}:willRetry=${event.willRetry}`);
      return undefined;
    },
    session_compact: () => void log.push("hook:session_compact"),
    session_compact_failed: (event) =>
      void log.push(`hook:session_compact_failed:aborted=${event.aborted}:willRetry=${event.willRetry}`),
  };

  const agent = new Agent<AgentMessage>({
    model: mock.model,
    streamFn: streamModel,
    getApiKey: () => "test-key",
    messages: file.context().messages,
    convertToLlm: (messages) => toModelMessages(messages as AgentMessage[]),
    retry: { enabled: false },
  });
  let finalEntryId: string | undefined;
  let finalMessage: AssistantMessage | undefined;
  agent.subscribe((event) => {
    if (event.type === "message_end" && !event.dropped) {
      const entry = file.append({ type: "message", message: event.message as AgentMessage });
      const message = event.message as AgentMessage;
      log.push(
        `entry:message:${message.role}${message.role === "assistant" ? `:${message.stopReason}` : ""}`,
      );
      if (message.role === "assistant") {
        finalEntryId = entry.id;
        finalMessage = message;
      }
    } else if (event.type === "turn_end") log.push("hook:turn_end");
    else if (event.type === "agent_end") log.push("hook:agent_end");
  });

  mock.server.enqueue(...replies);
  await agent.prompt(user("please do the thing"));
  if (!finalMessage || !finalEntryId) throw new Error("no final response");
  const plan = selectRecovery({
    finalMessage,
    attemptEntryIds: [finalEntryId],
    settings,
    contextWindow: mock.model.contextWindow,
    maxOutputTokens: mock.model.maxTokens,
    isRecoveryRetry: false,
  });
  if (!plan) return { log, file, result: undefined };

  const port = sessionFilePort(file);
  const result = await executeRecoveryPlan(plan, {
    // The runtime persisted the response at message_end and forwarded turn_end and
    // agent_end as they happened; these steps confirm that before repairing the context.
    persistFinalResponse: () => {
      if (!file.getEntry(finalEntryId as string)) throw new Error("final response not persisted");
      file.sync();
    },
    turnEnd: () => {
      if (!log.includes("hook:turn_end")) throw new Error("turn_end not delivered");
    },
    agentEnd: () => {
      if (!log.includes("hook:agent_end")) throw new Error("agent_end not delivered");
    },
    appendOmissions: (ids, kind) => {
      file.append(omissionEdit(ids, kind));
      log.push("entry:context_edit");
    },
    compact: (reason, willRetry) =>
      runCompaction({
        session: {
          branch: () => port.branch(),
          appendCompaction: async (draft) => {
            const entry = await port.appendCompaction(draft);
            log.push("entry:compaction");
            return entry;
          },
        },
        settings,
        summarizer: mock.summarizer,
        reason,
        willRetry,
        hooks,
      }),
    retry: async () => {
      agent.setMessages(file.context().messages);
      await agent.continue();
    },
  });
  return { log, file, result };
}

describe("overflow and length recovery with a real agent run", () => {
  test("a context overflow: final response, turn_end, agent_end, omission, compaction, fresh retry", async () => {
    await using mock = await mockSummarizer();
    const { log, file, result } = await runWithRecovery(mock, [
      { error: { kind: "contextOverflow" } },
      textReply("SUMMARY OF EARLY WORK"),
      textReply("done after retry"),
    ]);
    expect(log).toEqual([
      "entry:message:user",
      "entry:message:assistant:error",
      "hook:turn_end",
      "hook:agent_end",
      "entry:context_edit",
      "hook:session_before_compact:overflow:willRetry=true",
      "entry:compaction",
      "hook:session_compact",
      "entry:message:assistant:stop",
      "hook:turn_end",
      "hook:agent_end",
    ]);
    expect(result?.retried).toBe(true);
    const types = file.entries.slice(6).map((e) => e.type);
    expect(types).toEqual(["message", "message", "context_edit", "compaction", "message"]);
    // The retry saw the summary and the input, not the failed attempt.
    const retryRequest = mock.server.requests[2];
    if (!retryRequest) throw new Error("no retry request");
    const prompt = promptOf(retryRequest);
    expect(prompt).toContain("SUMMARY OF EARLY WORK");
    expect(prompt).toContain("please do the thing");
    expect(retryRequest.rawBody).not.toContain("prompt is too long");
    file.close();
  });

  test("an early length stop takes the same path", async () => {
    await using mock = await mockSummarizer();
    const { log, result, file } = await runWithRecovery(mock, [
      { ...textReply("cut sh"), stopReason: "length", usage: { input: 199_990, output: 3 } },
      textReply("SUMMARY"),
      textReply("complete answer"),
    ]);
    expect(log).toEqual([
      "entry:message:user",
      "entry:message:assistant:length",
      "hook:turn_end",
      "hook:agent_end",
      "entry:context_edit",
      "hook:session_before_compact:overflow:willRetry=true",
      "entry:compaction",
      "hook:session_compact",
      "entry:message:assistant:stop",
      "hook:turn_end",
      "hook:agent_end",
    ]);
    expect(result?.retried).toBe(true);
    const omitted = file.entries.find((e) => e.type === "context_edit");
    expect(omitted?.type === "context_edit" && omitted.omit).toEqual([file.entries[7]?.id as string]);
    file.close();
  });

  test("a failing summarizer leaves the omission, appends no compaction and starts no retry", async () => {
    await using mock = await mockSummarizer();
    const { log, result, file } = await runWithRecovery(mock, [
      { error: { kind: "contextOverflow" } },
      { error: { kind: "badRequest", message: "summarizer down" } },
    ]);
    expect(log).toEqual([
      "entry:message:user",
      "entry:message:assistant:error",
      "hook:turn_end",
      "hook:agent_end",
      "entry:context_edit",
      "hook:session_before_compact:overflow:willRetry=true",
      "hook:session_compact_failed:aborted=false:willRetry=true",
    ]);
    expect(result?.retried).toBe(false);
    expect(result?.compaction?.status).toBe("failed");
    expect(file.entries.at(-1)?.type).toBe("context_edit");
    expect(file.entries.some((e) => e.type === "compaction")).toBe(false);
    // The overflow request and the failed summary request; no retry request.
    expect(mock.server.requests.length).toBe(2);
    // The omission is in force: the failed attempt is gone from the model's context.
    expect(file.context().messages.at(-1)).toEqual(user("please do the thing"));
    file.close();
  });

  test("a length stop that used its whole output budget is not recovered", async () => {
    await using mock = await mockSummarizer({ maxTokens: 50 });
    const { log, result } = await runWithRecovery(mock, [
      { ...textReply("long answer"), stopReason: "length", usage: { input: 1000, output: 50 } },
    ]);
    expect(result).toBeUndefined();
    expect(log.at(-1)).toBe("hook:agent_end");
    expect(mock.server.requests.length).toBe(1);
  });
});
