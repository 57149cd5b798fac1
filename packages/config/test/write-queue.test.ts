import { describe, expect, test } from "bun:test";
import { enqueueFileWrite } from "../src/write-queue.ts";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("per-file write queue", () => {
  test("tasks for one file run in order, one at a time", async () => {
    const order: string[] = [];
    const gate = deferred();
    const first = enqueueFileWrite("/q/one", async () => {
      order.push("first:start");
      await gate.promise;
      order.push("first:end");
    });
    const second = enqueueFileWrite("/q/one", async () => {
      order.push("second");
    });
    await Promise.resolve();
    expect(order).toEqual(["first:start"]);
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(["first:start", "first:end", "second"]);
  });

  test("a failing task rejects its caller but not the next task", async () => {
    const failed = enqueueFileWrite("/q/two", async () => {
      throw new Error("nope");
    });
    const next = enqueueFileWrite("/q/two", async () => "ok");
    await expect(failed).rejects.toThrow("nope");
    expect(await next).toBe("ok");
  });

  test("different files do not wait for each other", async () => {
    const gate = deferred();
    const blocked = enqueueFileWrite("/q/a", () => gate.promise);
    expect(await enqueueFileWrite("/q/b", async () => "free")).toBe("free");
    gate.resolve();
    await blocked;
  });

  test("a second copy of the module shares the same queue", async () => {
    // A query string makes Bun load a separate instance of the module.
    const specifier = "../src/write-queue.ts?second-instance";
    const copy = (await import(specifier)) as typeof import("../src/write-queue.ts");
    expect(copy.enqueueFileWrite).not.toBe(enqueueFileWrite);
    const order: string[] = [];
    const gate = deferred();
    const first = enqueueFileWrite("/q/shared", async () => {
      await gate.promise;
      order.push("original");
    });
    const second = copy.enqueueFileWrite("/q/shared", async () => {
      order.push("copy");
    });
    gate.resolve();
    await Promise.all([first, second]);
    expect(order).toEqual(["original", "copy"]);
  });
});
