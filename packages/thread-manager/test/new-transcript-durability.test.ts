/**
 * A new thread's transcript is fsynced (file and directory) on the thread pool while the
 * thread is adopted, and made durable on the main thread before `thread/started` and the
 * answer of `thread/start` / `thread/fork` (`ensureDurable`, cheap once the pool's have
 * run); a failed fsync fails the request and leaves nothing loaded, nothing locked and
 * nothing built for the thread running. The pool's side (reports, failures, close while
 * pending) is tested in the session store.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { SessionFile } from "@knightcode/session-store";
import {
  type HeldFsyncs,
  holdFsyncs,
  ioError,
  recordMainThreadFsyncs,
} from "@knightcode/testkit/held-fsyncs";
import type { ThreadToolSourceFactory } from "../src/index.ts";
import { createHarness, type Harness } from "./support/harness.ts";

let held: HeldFsyncs | undefined;
afterEach(() => {
  held?.[Symbol.dispose]();
  held = undefined;
});

/** A per-thread tool source that records when adoption builds it and when it is disposed. */
function recordingToolSource() {
  const recorder = {
    built: [] as string[],
    disposed: [] as string[],
    onBuilt: undefined as (() => void) | undefined,
    factory: (async (context) => {
      recorder.built.push(context.threadId);
      recorder.onBuilt?.();
      return {
        source: { tools: async () => [], dispose: async () => void recorder.disposed.push(context.threadId) },
        warnings: [],
      };
    }) as ThreadToolSourceFactory,
  };
  return recorder;
}

async function harnessWithSource() {
  const source = recordingToolSource();
  const h = await createHarness({ manager: () => ({ toolSources: [source.factory] }) });
  return { h, source };
}

const startedEvents = (h: Harness) => h.events.filter((e) => e.notification.method === "thread/started");

/** Records the order of adoption, main-thread fsyncs and notifications. */
function orderLog(h: Harness, source: ReturnType<typeof recordingToolSource>) {
  const log: string[] = [];
  source.onBuilt = () => log.push("tool source built");
  h.manager.onEvent((event) => {
    if (event.notification.method === "thread/started") log.push("thread/started");
  });
  const main = recordMainThreadFsyncs({
    onCall: (call) => log.push(call.isDirectory ? "fsync directory" : "fsync file"),
  });
  return { log, main };
}

describe("a new transcript's fsyncs overlap adoption", () => {
  for (const method of ["thread/start", "thread/fork"] as const) {
    test(`${method}: adoption runs while the pool's fsyncs do; the file and its name are durable before the thread is announced and answered`, async () => {
      const { h, source } = await harnessWithSource();
      await using _ = h;
      const original =
        method === "thread/fork"
          ? (await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop())).thread
          : undefined;
      held = holdFsyncs();
      const { log, main } = orderLog(h, source);
      using _main = main;
      const request =
        method === "thread/start"
          ? h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop())
          : h.manager.forkThread({ threadId: original!.id }, h.desktop());
      await held.reached(2);
      expect(held.calls.map((c) => c.isDirectory)).toEqual([false, true]);
      // The pool's fsyncs stay held: the answer does not wait for them, since the main
      // thread made the file durable itself (cheaply, once they have run) before it.
      const { thread } = await request;
      expect(log).toEqual(["tool source built", "fsync file", "fsync directory", "thread/started"]);
      expect(main.calls[0]!.ino).toBe(statSync(thread.path!).ino);
      expect(main.calls[1]!.ino).toBe(statSync(dirname(thread.path!)).ino);
      expect(h.manager.diagnostics().loadedThreads).toBe(original ? 2 : 1);
      expect(source.built.at(-1)).toBe(thread.id);
    });
  }
});

describe("a failed fsync of the new transcript", () => {
  for (const method of ["thread/start", "thread/fork"] as const) {
    test(`fails ${method} as internal; nothing loaded, announced or locked, the thread's parts disposed`, async () => {
      const { h, source } = await harnessWithSource();
      await using _ = h;
      const original =
        method === "thread/fork"
          ? (await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop())).thread
          : undefined;
      const before = { started: startedEvents(h).length, loaded: h.manager.diagnostics().loadedThreads };
      // The pool's fsyncs never report; the main thread's fsync of the transcript fails.
      held = holdFsyncs();
      const failing = recordMainThreadFsyncs({ fail: (call) => (call.isDirectory ? undefined : ioError()) });
      const request =
        method === "thread/start"
          ? h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop())
          : h.manager.forkThread({ threadId: original!.id }, h.desktop());
      await expect(request).rejects.toMatchObject({
        code: "internal",
        message: expect.stringContaining("EIO"),
      });
      failing[Symbol.dispose]();
      expect(failing.calls).toHaveLength(1);

      expect(startedEvents(h)).toHaveLength(before.started);
      expect(h.manager.diagnostics().loadedThreads).toBe(before.loaded);
      const failedId = source.built.at(-1)!;
      expect(failedId).not.toBe(original?.id);
      expect(source.disposed).toEqual([failedId]);
      // As when the fsync ran on the main thread only: the file stays, and nobody holds it.
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

describe("a failed adoption of a new transcript", () => {
  test("closes it: a tool source that fails leaves the file unlocked", async () => {
    const h = await createHarness({
      manager: () => ({
        toolSources: [
          async () => {
            throw new Error("tool source refused");
          },
        ],
      }),
    });
    await using _ = h;
    await expect(h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop())).rejects.toMatchObject({
      code: "internal",
      message: "tool source refused",
    });
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    const [listed] = (await h.manager.listThreads({}, h.desktop())).threads;
    using reopened = await SessionFile.openOwned(listed!.path!);
    expect(reopened.id).toBe(listed!.id);
  });
});
