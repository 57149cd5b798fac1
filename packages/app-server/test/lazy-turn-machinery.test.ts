/**
 * The turn machinery (agent loop and tools, approvals' gate, the thread manager's turn
 * runner) is not on a thread's path: a fresh process that starts, resumes, reads or lists
 * threads has not loaded it, and loads it for the first turn request or after its first
 * thread answers. Each scenario runs in its own `bun` process (a test process has long
 * loaded everything), which reports from `require.cache` what had loaded when.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectOutput } from "@knightcode/testkit";
import type { Caller } from "@knightcode/thread-manager";
import { createServerHost } from "../src/host.ts";
import { TURN_MODULES } from "./fixtures/turn-modules.ts";

const PROBE = join(import.meta.dir, "fixtures", "turn-machinery-probe.ts");
const ALL_TURN_MODULES = [...TURN_MODULES];
const caller: Caller = { connectionId: "parent", clientKind: "desktop" };

let root: string;
let agentDir: string;
let cwd: string;
/** The environment of a user with no keys: the offline demo model is the default. */
let env: Record<string, string>;
/** A thread with one finished turn, for the probe that never starts or resumes it. */
let coldThread: string;
/** Another, with the usage its resume reported in this process. */
let resumedThread: string;
let resumedUsage: unknown;

async function probe(scenario: string, threadId?: string): Promise<Record<string, unknown>> {
  const child = Bun.spawn(
    [process.execPath, PROBE, scenario, agentDir, cwd, ...(threadId ? [threadId] : [])],
    {
      cwd,
      env,
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const { stdout, stderr, code } = await collectOutput(child);
  if (code !== 0) throw new Error(`probe ${scenario} exited ${code}:\n${stderr}`);
  return JSON.parse(stdout.trim()) as Record<string, unknown>;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "knightcode-lazy-turns-"));
  agentDir = join(root, "agent");
  cwd = join(root, "project");
  mkdirSync(cwd, { recursive: true });
  env = { PATH: process.env.PATH ?? "", HOME: root };
  const host = await createServerHost({ agentDir, env });
  const completed = (threadId: string) =>
    new Promise<void>((resolve) => {
      const off = host.threads.onEvent(({ notification }) => {
        if (notification.method === "turn/completed" && notification.params.threadId === threadId) {
          off();
          resolve();
        }
      });
    });
  const withTurn = async () => {
    const { thread } = await host.threads.startThread({ cwd }, caller);
    const done = completed(thread.id);
    await host.threads.startTurn({ threadId: thread.id, text: "hello" }, caller);
    await done;
    return thread.id;
  };
  coldThread = await withTurn();
  resumedThread = await withTurn();
  resumedUsage = (await host.threads.resumeThread({ threadId: resumedThread }, caller)).usage;
  await host.threads.closeAll();
  await host.dispose();
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the turn machinery loads with the first turn, not with the host", () => {
  test("thread/start answers before any of it loads; a turn/start sent at once loads it and completes", async () => {
    const report = await probe("start-then-turn");
    expect(report.atHostReady).toEqual([]);
    expect(report.afterThreadStart).toEqual([]);
    expect(report.turn).toEqual({ started: "started", completed: "completed" });
    expect(report.afterTurn).toEqual(ALL_TURN_MODULES);
  }, 60_000);

  test("after the first thread answers, it loads in the background without any turn", async () => {
    const report = await probe("preload");
    expect(report.afterThreadStart).toEqual([]);
    expect(report.preloaded).toBe(true);
  }, 60_000);

  test("read and list leave it unloaded; interrupt and queue remove on an unloaded thread answer as before; a turn on a never-resumed thread completes", async () => {
    const report = await probe("cold-thread", coldThread);
    expect(report.afterReadAndList).toEqual([]);
    expect(report.interruptUnknown).toBe("threadNotFound");
    expect(report.interruptUnloaded).toEqual({});
    expect(report.queueRemoveUnloaded).toEqual({ removed: false });
    expect(report.turn).toEqual({ started: "started", completed: "completed" });
  }, 60_000);

  test("thread/resume reports the same usage, context size included, without loading it", async () => {
    const report = await probe("resume", resumedThread);
    expect(report.afterResume).toEqual([]);
    expect(resumedUsage).toBeDefined();
    expect(report.usage).toEqual(resumedUsage);
    expect(report.turn).toEqual({ started: "started", completed: "completed" });
  }, 60_000);

  test("closeAll works with nothing loaded, and with the preload still pending", async () => {
    expect((await probe("close-early")).afterFirstClose).toEqual([]);
    expect((await probe("close-after-start")).closed).toBe(true);
  }, 60_000);
});
