/**
 * `thread/fork` of a thread that is not loaded: the source is loaded to ask its
 * extensions when the factory's discovery finds one (or cannot tell), subscribing
 * nobody, and unloads on the idle timer; with nothing found it is never loaded. The
 * app-server e2e test (`fork-unloaded-source.test.ts`) runs the same over real servers
 * with pi's `dirty-repo-guard.ts`; this one watches the manager's side of it.
 */
import { describe, expect, test } from "bun:test";
import type { AppServerError } from "@knightcode/app-server-protocol";
import { type ExtensionHostFactory, IDLE_UNLOAD_MS } from "../src/index.ts";
import { createHarness, type Harness } from "./support/harness.ts";

/** A factory whose hosts refuse (or allow) forks, counting builds and the forks asked. */
function guardFactory(options: { refuse: boolean; finds?: boolean }) {
  const seen = { builds: 0, asked: [] as { entryId: string; position: string }[], discoveries: 0 };
  const factory = Object.assign(
    async () => {
      seen.builds += 1;
      return {
        hooks: {
          sessionBeforeFork: async (event: { entryId: string; position: "before" | "at" }) => {
            seen.asked.push(event);
            return options.refuse ? { cancel: true as const, path: "/ext/guard.ts" } : undefined;
          },
        },
        commands: [],
        warnings: [],
        dispose: async () => {},
      };
    },
    options.finds === undefined
      ? {}
      : {
          findsExtensions: async () => {
            seen.discoveries += 1;
            return options.finds!;
          },
        },
  ) as ExtensionHostFactory;
  return { factory, seen };
}

/** Starts a thread with one entry and lets it unload; resolves with its ID and leaf. */
async function unloadedThread(h: Harness): Promise<{ id: string; leaf: string }> {
  const caller = h.desktop("starter");
  const { thread } = await h.manager.startThread({ cwd: h.dir.cwd, name: "source" }, caller);
  await h.manager.unsubscribe({ threadId: thread.id }, caller);
  h.clock.advance(IDLE_UNLOAD_MS);
  expect(h.manager.diagnostics().loadedThreads).toBe(0);
  const { turns: _turns, thread: read } = await h.manager.readThread({ threadId: thread.id }, caller);
  expect(read.status).toEqual({ type: "notLoaded" });
  const lines = (await Bun.file(read.path!).text()).trim().split("\n");
  return { id: thread.id, leaf: (JSON.parse(lines.at(-1)!) as { id: string }).id };
}

async function refusalOf(promise: Promise<unknown>): Promise<AppServerError> {
  try {
    await promise;
  } catch (error) {
    return error as AppServerError;
  }
  throw new Error("expected a refusal");
}

describe("thread/fork of an unloaded thread", () => {
  test("a refusing extension is asked at the leaf; the source stays loaded for nobody and unloads on the idle timer", async () => {
    const { factory, seen } = guardFactory({ refuse: true, finds: true });
    await using h = await createHarness({ extensions: factory });
    const source = await unloadedThread(h);
    const builds = seen.builds;
    const forker = h.desktop("forker");
    const from = h.events.length;

    const refused = await refusalOf(h.manager.forkThread({ threadId: source.id }, forker));
    expect(refused.code).toBe("invalidParams");
    expect(refused.data).toEqual({ reason: "extensionCancelled" });
    expect(seen.asked).toEqual([{ entryId: source.leaf, position: "at" }]);
    expect(seen.builds).toBe(builds + 1);
    expect(h.manager.diagnostics().loadedThreads).toBe(1);
    // the load is announced to everyone; no thread was started
    const statuses = h.events
      .slice(from)
      .filter((e) => e.notification.method === "thread/status/changed")
      .map((e): unknown[] => [e.audience, e.notification.params]);
    expect(statuses).toEqual([["everyone", { threadId: source.id, status: { type: "idle" } }]]);
    expect(h.events.slice(from).filter((e) => e.notification.method === "thread/started")).toEqual([]);

    h.clock.advance(IDLE_UNLOAD_MS);
    expect(h.manager.diagnostics().loadedThreads).toBe(0);
    const read = await h.manager.readThread({ threadId: source.id }, forker);
    expect(read.thread.status).toEqual({ type: "notLoaded" });
  });

  test("an allowing extension is asked and the fork answers; the forker is subscribed to the fork only", async () => {
    const { factory, seen } = guardFactory({ refuse: false, finds: true });
    await using h = await createHarness({ extensions: factory });
    const source = await unloadedThread(h);
    const forker = h.desktop("forker");
    const { thread: fork } = await h.manager.forkThread({ threadId: source.id }, forker);
    expect(fork.forkedFromId).toBe(source.id);
    expect(seen.asked).toEqual([{ entryId: source.leaf, position: "at" }]);
    // only the fork is the forker's: unsubscribing from the source finds no subscription
    expect(await h.manager.unsubscribe({ threadId: source.id }, forker)).toEqual({ status: "notSubscribed" });
  });

  test("when discovery finds nothing the source is never loaded and no host is built for it", async () => {
    const { factory, seen } = guardFactory({ refuse: true, finds: false });
    await using h = await createHarness({ extensions: factory });
    const source = await unloadedThread(h);
    const builds = seen.builds;
    const discoveries = seen.discoveries;
    const { thread: fork } = await h.manager.forkThread({ threadId: source.id }, h.desktop("forker"));
    expect(fork.forkedFromId).toBe(source.id);
    expect(seen.discoveries).toBe(discoveries + 1);
    // one host: the fork's own
    expect(seen.builds).toBe(builds + 1);
    expect(seen.asked).toEqual([]);
    expect(h.manager.diagnostics().loadedThreads).toBe(1);
    const read = await h.manager.readThread({ threadId: source.id }, h.desktop("forker"));
    expect(read.thread.status).toEqual({ type: "notLoaded" });
  });

  test("a factory that cannot tell (no findsExtensions) is taken to find one: the guard is asked", async () => {
    const { factory, seen } = guardFactory({ refuse: true });
    await using h = await createHarness({ extensions: factory });
    const source = await unloadedThread(h);
    const refused = await refusalOf(h.manager.forkThread({ threadId: source.id }, h.desktop("forker")));
    expect(refused.data).toEqual({ reason: "extensionCancelled" });
    expect(seen.asked).toHaveLength(1);
  });

  test("a resume and a fork at the same time share one load", async () => {
    const { factory, seen } = guardFactory({ refuse: false, finds: true });
    await using h = await createHarness({ extensions: factory });
    const source = await unloadedThread(h);
    const builds = seen.builds;
    const reader = h.desktop("reader");
    const [resumed, forked] = await Promise.all([
      h.manager.resumeThread({ threadId: source.id }, reader),
      h.manager.forkThread({ threadId: source.id }, h.desktop("forker")),
    ]);
    expect(resumed.thread.id).toBe(source.id);
    expect(forked.thread.forkedFromId).toBe(source.id);
    // the source's host once, the fork's once
    expect(seen.builds).toBe(builds + 2);
    expect(seen.asked).toHaveLength(1);
    // the resumer keeps the source: the idle timer does not unload it
    h.clock.advance(IDLE_UNLOAD_MS);
    const read = await h.manager.readThread({ threadId: source.id }, reader);
    expect(read.thread.status).toEqual({ type: "idle" });
  });
});
