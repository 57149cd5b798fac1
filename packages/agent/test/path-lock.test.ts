import { describe, expect, test } from "bun:test";
import { PathLock } from "../src/index.ts";
import { deferred } from "./helpers/deferred.ts";

describe("PathLock", () => {
  test("work on a shared key waits for earlier work, even when that work fails", async () => {
    const lock = new PathLock();
    const gate = deferred();
    const order: string[] = [];
    const first = lock.run(["/a"], async () => {
      order.push("first");
      await gate.promise;
      throw new Error("first failed");
    });
    const second = lock.run(["/b", "/a"], async () => {
      order.push("second");
      return 2;
    });
    const other = lock.run(["/c"], async () => {
      order.push("other");
      return 3;
    });
    expect(await other).toBe(3);
    expect(order).toEqual(["first", "other"]);
    gate.resolve();
    await expect(first).rejects.toThrow("first failed");
    expect(await second).toBe(2);
    expect(order).toEqual(["first", "other", "second"]);
  });
});
