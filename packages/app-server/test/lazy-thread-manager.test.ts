import { describe, expect, test } from "bun:test";
import type { ThreadManagerEvent } from "@knightcode/thread-manager";
import { createLazyThreadManager } from "../src/lazy-thread-manager.ts";
import { FakeThreadManager } from "./support/fake-thread-manager.ts";

describe("lazy thread manager", () => {
  test("calls wait for the load; listeners, the request port and closed connections carry over", async () => {
    const inner = new FakeThreadManager();
    const { promise: gate, resolve: open } = Promise.withResolvers<void>();
    const lazy = createLazyThreadManager(async () => {
      await gate;
      return inner;
    });
    const events: ThreadManagerEvent[] = [];
    lazy.onEvent((e) => events.push(e));
    const port = { requestApproval: () => ({ response: new Promise<never>(() => {}), cancel: () => {} }) };
    lazy.attachServerRequests(port);
    lazy.connectionClosed("early");
    expect(lazy.diagnostics().loadedThreads).toBe(0);
    const started = lazy.startThread({ cwd: "/tmp" }, { connectionId: "c1", clientKind: "desktop" });
    open();
    const { thread } = await started;
    expect(inner.threads.has(thread.id)).toBe(true);
    expect(inner.port).toBe(port);
    expect(inner.closedConnections).toEqual(["early"]);
    expect(events.map((e) => e.notification.method)).toEqual(["thread/started"]);
    expect(lazy.diagnostics().loadedThreads).toBe(1);
    await lazy.closeAll();
    expect(inner.closeAllCalls).toBe(1);
  });

  test("a failed load fails the requests that need the manager, and closeAll still resolves", async () => {
    const lazy = createLazyThreadManager(async () => {
      throw new Error("cannot load");
    });
    await expect(lazy.listModels({}, { connectionId: "c", clientKind: "desktop" })).rejects.toThrow(
      "cannot load",
    );
    await lazy.closeAll();
  });
});
