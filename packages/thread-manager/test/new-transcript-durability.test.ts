/**
 * A new thread's transcript is made durable (file and directory fsync) off the main
 * thread while the thread is adopted: `thread/start` and `thread/fork` answer, and
 * `thread/started` goes out, only after both fsyncs; a failed fsync fails the request
 * and leaves nothing loaded, nothing locked and nothing built for the thread running.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { SessionFile } from "@knightcode/session-store";
import type { ThreadToolSourceFactory } from "../src/index.ts";
import { createHarness, type Harness } from "./support/harness.ts";
import { type HeldFsyncs, holdFsyncs, ioError, settle } from "./support/held-fsyncs.ts";

let held: HeldFsyncs | undefined;
afterEach(() => {
  held?.[Symbol.dispose]();
  held = undefined;
});

/** A per-thread tool source that records when adoption builds it and when it is disposed. */
function recordingToolSource() {
  const built: string[] = [];
  const disposed: string[] = [];
  let wake: (() => void) | undefined;
  const factory: ThreadToolSourceFactory = async (context) => {
    built.push(context.threadId);
    wake?.();
    return {
      source: { tools: async () => [], dispose: async () => void disposed.push(context.threadId) },
      warnings: [],
    };
  };
  /** Resolves once `count` sources have been built, or rejects after a timeout. */
  const builtOnce = (count: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${count} tool sources`)),
        10_000,
      );
      const check = () => {
        if (built.length < count) {
          wake = check;
          return;
        }
        clearTimeout(timer);
        resolve();
      };
      check();
    });
  return { factory, built, disposed, builtOnce };
}

async function harnessWithSource() {
  const source = recordingToolSource();
  const h = await createHarness({ manager: () => ({ toolSources: [source.factory] }) });
  return { h, source };
}

async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await settle();
  return settled;
}

const startedEvents = (h: Harness) => h.events.filter((e) => e.notification.method === "thread/started");

describe("a new transcript's fsyncs overlap adoption", () => {
  test("thread/start builds the thread while they run, and answers and announces only after both", async () => {
    const { h, source } = await harnessWithSource();
    await using _ = h;
    held = holdFsyncs();
    const start = h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    await held.reached(2);
    expect(held.calls.map((c) => c.isDirectory)).toEqual([false, true]);
    // Adoption went on meanwhile: the thread's tool sources were built.
    await source.builtOnce(1);
    expect(await settledYet(start)).toBe(false);
    expect(startedEvents(h)).toEqual([]);
    expect(h.manager.diagnostics().loadedThreads).toBe(0);

    held.calls[0]!.release();
    expect(await settledYet(start)).toBe(false);
    held.calls[1]!.release();
    const { thread } = await start;
    expect(
      startedEvents(h).map((e) => (e.notification.params as { thread: { id: string } }).thread.id),
    ).toEqual([thread.id]);
    expect(h.manager.diagnostics().loadedThreads).toBe(1);
    expect(source.built).toEqual([thread.id]);
  });

  test("thread/fork: the same for the fork's transcript", async () => {
    const { h, source } = await harnessWithSource();
    await using _ = h;
    const { thread: original } = await h.manager.startThread({ cwd: h.dir.cwd, name: "src" }, h.desktop());
    held = holdFsyncs();
    const fork = h.manager.forkThread({ threadId: original.id }, h.desktop());
    await held.reached(2);
    await source.builtOnce(2);
    expect(await settledYet(fork)).toBe(false);
    expect(startedEvents(h)).toHaveLength(1);
    held.releaseAll();
    const { thread } = await fork;
    expect(thread.name).toBe("src (fork)");
    expect(startedEvents(h)).toHaveLength(2);
    expect(h.manager.diagnostics().loadedThreads).toBe(2);
  });
});

describe("a failed fsync of the new transcript", () => {
  for (const method of ["thread/start", "thread/fork"] as const) {
    test(`fails ${method} as internal; nothing loaded, announced or locked, the thread's parts disposed`, async () => {
      const { h, source } = await harnessWithSource();
      await using _ = h;
      const original =
        method === "thread/fork"
          ? (await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop())).thread
          : undefined;
      const before = { started: startedEvents(h).length, loaded: h.manager.diagnostics().loadedThreads };
      held = holdFsyncs();
      const request =
        method === "thread/start"
          ? h.manager.startThread({ cwd: h.dir.cwd }, h.desktop())
          : h.manager.forkThread({ threadId: original!.id }, h.desktop());
      await held.reached(2);
      held.calls[0]!.release(ioError());
      held.calls[1]!.release();
      await expect(request).rejects.toMatchObject({
        code: "internal",
        message: expect.stringContaining("EIO"),
      });

      expect(startedEvents(h)).toHaveLength(before.started);
      expect(h.manager.diagnostics().loadedThreads).toBe(before.loaded);
      const failedId = source.built.at(-1)!;
      expect(failedId).not.toBe(original?.id);
      expect(source.disposed).toEqual([failedId]);
      // As when the fsync ran on the main thread: the file stays, and nobody holds it.
      held[Symbol.dispose]();
      held = undefined;
      const listed = await h.manager.listThreads({}, h.desktop());
      const path = listed.threads.find((t) => t.id === failedId)?.path;
      expect(path !== undefined && existsSync(path)).toBe(true);
      using reopened = await SessionFile.openOwned(path!);
      expect(reopened.id).toBe(failedId);
    });
  }
});
