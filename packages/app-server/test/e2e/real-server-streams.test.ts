/**
 * The recorded-stream corpus (testkit `STREAM_CORPUS`) through a real `knightcode app-server`
 * child process: one process, one thread per case, the replay server standing in for each
 * real server (Ollama, vLLM, llama.cpp, Gemini, DeepSeek, gateways…) with its provider name in
 * models.json, so compat defaults are detected as they would be. The agent runs the tools
 * for real; each follow-up request must carry one result per call with the right ids (and, for
 * DeepSeek and Gemini, the reasoning or signature) or the replay server refuses it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  AppServerClient,
  StreamTransport,
  type ThreadItem,
  type TokenUsage,
  type TurnCompletedNotification,
} from "@knightcode/app-server-protocol";
import {
  CORPUS_NOTES_FILE,
  CORPUS_PROMPT,
  corpusModelsJson,
  knightcodeArgv,
  type ReplayServer,
  STREAM_CORPUS,
  type StreamCase,
  startReplayServer,
  type TempAgentDir,
  tempAgentDir,
} from "@knightcode/testkit";
import { E2E_TIMEOUT, nextNotification } from "./harness.ts";

const RECOVERY_MODEL = "llama-cpp-recovery";
const NO_ROUND_TRIP_MODEL = "deepseek-without-reasoning-content";

let replay: ReplayServer;
let agent: TempAgentDir;
let child: ReturnType<typeof Bun.spawn<"pipe", "pipe", "pipe">>;
let client: AppServerClient;
let stderr = "";

beforeAll(async () => {
  replay = await startReplayServer();
  const models = corpusModelsJson(replay.baseUrl);
  // A model of its own for the recovery test, compacting all but the newest tokens.
  models.providers["llama-cpp"]!.models.push({
    id: RECOVERY_MODEL,
    api: "openai-completions",
    contextWindow: 200_000,
    maxTokens: 4_096,
  });
  // DeepSeek with the round-trip turned off per model, to show the replay server refuses it.
  models.providers.deepseek!.models.push({
    id: NO_ROUND_TRIP_MODEL,
    api: "openai-completions",
    reasoning: true,
    compat: { sendReasoningContent: false },
  });
  agent = await tempAgentDir({
    models,
    settings: { compaction: { models: { [`llama-cpp/${RECOVERY_MODEL}`]: { keepRecentTokens: 1 } } } },
  });
  writeFileSync(join(agent.cwd, CORPUS_NOTES_FILE), "buy milk\nship it\n");
  child = Bun.spawn(knightcodeArgv(["app-server"]), {
    cwd: agent.cwd,
    env: { ...process.env, ...agent.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  client = new AppServerClient(new StreamTransport({ readable: child.stdout, writable: child.stdin }));
  await client.connect();
  await client.initialize({ clientInfo: { name: "real-server-streams", version: "1" } });
}, E2E_TIMEOUT);

afterAll(async () => {
  child.stdin.end();
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await child.exited;
  clearTimeout(timer);
  await replay.close();
  await agent.remove();
});

interface TurnRecord {
  completed: TurnCompletedNotification;
  items: ThreadItem[];
  usage: TokenUsage | undefined;
}

/** Runs one turn of `c` on a new thread and collects what the server reported. */
async function runCase(c: StreamCase): Promise<TurnRecord> {
  replay.reset();
  replay.enqueue(...c.replies);
  const { thread } = await client.request("thread/start", {
    cwd: agent.cwd,
    approvalMode: "fullAccess",
    model: { provider: c.provider, id: c.name },
  });
  return runTurn(thread.id);
}

/** Runs one turn on a thread and collects what the server reported for it. */
async function runTurn(threadId: string): Promise<TurnRecord> {
  const thread = { id: threadId };
  const items: ThreadItem[] = [];
  let usage: TokenUsage | undefined;
  const off = client.onNotification("*", (method, params) => {
    const p = params as { threadId?: string; item?: ThreadItem; usage?: TokenUsage };
    if (p.threadId !== thread.id) return;
    if (method === "item/completed" && p.item) items.push(p.item);
    if (method === "thread/tokenUsage/updated") usage = p.usage;
  });
  const done = nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === thread.id,
    40_000,
  );
  await client.request("turn/start", { threadId: thread.id, text: CORPUS_PROMPT });
  const completed = await done;
  off();
  return { completed, items, usage };
}

describe("[stdio] recorded real-server streams through knightcode app-server", () => {
  for (const c of STREAM_CORPUS) {
    test(
      `${c.name} (${c.replies[0]!.stream.server})`,
      async () => {
        const { completed, items, usage } = await runCase(c);
        const context = `stderr: ${stderr.slice(-2000)}`;
        expect(replay.rejections, context).toEqual([]);
        const last = c.replies.at(-1)!.expect;
        if (last.stopReason === "error") {
          expect(completed.turn.status).toBe("failed");
          expect(completed.turn.error?.kind).toBe(last.errorKind!);
        } else {
          expect(completed.turn.status, context).toBe("completed");
          expect(replay.requests.length).toBe(c.replies.length);
        }
        // The agent's text, reasoning and tool calls, reply by reply.
        const texts = items.flatMap((i) => (i.type === "agentMessage" ? [i.text] : []));
        expect(texts).toEqual(c.replies.map((r) => r.expect.text).filter((t) => t !== ""));
        const reasoning = items.flatMap((i) => (i.type === "reasoning" ? [i.text] : []));
        expect(reasoning).toEqual(c.replies.flatMap((r) => (r.expect.reasoning ? [r.expect.reasoning] : [])));
        const calls = items.flatMap((i) => (i.type === "toolCall" ? [i] : []));
        expect(calls.map((call) => ({ name: call.toolName, arguments: call.input }))).toEqual(
          c.replies.flatMap((r) => r.expect.toolCalls ?? []),
        );
        for (const call of calls) expect(call.status).toBe("completed");
        expect(new Set(calls.map((call) => call.id)).size).toBe(calls.length);
        // Usage: the thread's totals are the sum of what the replies reported.
        if (last.stopReason !== "error") {
          const sum = (key: "input" | "output" | "cacheRead") =>
            c.replies.reduce((n, r) => n + (r.expect.usage?.[key] ?? 0), 0);
          expect(usage).toBeDefined();
          expect({ input: usage!.input, output: usage!.output, cacheRead: usage!.cacheRead }).toEqual({
            input: sum("input"),
            output: sum("output"),
            cacheRead: sum("cacheRead"),
          });
        }
      },
      E2E_TIMEOUT,
    );
  }
});

describe("[stdio] an in-stream context error from llama.cpp", () => {
  test(
    "starts overflow recovery: the history is compacted and the retry completes the turn",
    async () => {
      const recorded = (name: string, reply = 0) =>
        STREAM_CORPUS.find((c) => c.name === name)!.replies[reply]!;
      replay.reset();
      const { thread } = await client.request("thread/start", {
        cwd: agent.cwd,
        approvalMode: "fullAccess",
        model: { provider: "llama-cpp", id: RECOVERY_MODEL },
      });
      replay.enqueue(recorded("llama-cpp-text-timings"));
      const first = await runTurn(thread.id);
      expect(first.completed.turn.status).toBe("completed");
      // The next request overflows mid-stream; then the summary request, then the retry.
      replay.enqueue(recorded("llama-cpp-context-error"), recorded("deepseek-keepalive-comments"), {
        stream: recorded("llama-cpp-tool-call", 1).stream,
      });
      const second = await runTurn(thread.id);
      expect(replay.rejections).toEqual([]);
      expect(second.completed.turn.status, `stderr: ${stderr.slice(-2000)}`).toBe("completed");
      expect(replay.requests.length).toBe(4);
      expect(second.items.some((i) => i.type === "compaction")).toBe(true);
      const texts = second.items.flatMap((i) => (i.type === "agentMessage" ? [i.text] : []));
      expect(texts.at(-1)).toBe("The notes are short.");
    },
    E2E_TIMEOUT,
  );
});

describe("[stdio] DeepSeek's thinking mode with sendReasoningContent off for the model", () => {
  test(
    "the follow-up lacks reasoning_content, DeepSeek's 400 fails the turn as other",
    async () => {
      const deepseek = STREAM_CORPUS.find((c) => c.name === "deepseek-thinking-tool-call")!;
      replay.reset();
      replay.enqueue(...deepseek.replies);
      const { thread } = await client.request("thread/start", {
        cwd: agent.cwd,
        approvalMode: "fullAccess",
        model: { provider: "deepseek", id: NO_ROUND_TRIP_MODEL },
      });
      const { completed } = await runTurn(thread.id);
      expect(replay.rejections.map((r) => r.message)).toEqual([
        "The reasoning_content in the thinking mode must be passed back to the API.",
      ]);
      expect(completed.turn.status).toBe("failed");
      expect(completed.turn.error).toMatchObject({ kind: "other" });
      expect(completed.turn.error?.message).toContain("reasoning_content");
    },
    E2E_TIMEOUT,
  );
});
