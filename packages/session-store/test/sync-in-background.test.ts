/**
 * `SessionFile.syncInBackground`, the turn-end durability point off the main thread:
 * ownership is checked at the call, the fsync runs on the thread pool on a descriptor of
 * its own (so closing the session meanwhile is safe), its error rejects the promise, and
 * `syncsDone` waits for every one still running.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { fstatSync, unlinkSync } from "node:fs";
import { type HeldFsyncs, holdFsyncs, ioError, settledYet } from "@knightcode/testkit/held-fsyncs";
import { lockPathFor, OwnershipLostError, SessionFile } from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";

let held: HeldFsyncs | undefined;
afterEach(() => {
  held?.[Symbol.dispose]();
  held = undefined;
});

describe("SessionFile.syncInBackground", () => {
  test("fsyncs the transcript on a descriptor of its own; closing meanwhile is safe and syncsDone waits", async () => {
    await using dir = tempDir();
    const file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    file.append({ type: "custom", customType: "a" });
    held = holdFsyncs();
    const done = file.syncInBackground();
    await held.reached(1);
    const call = held.calls[0]!;
    expect(call.isDirectory).toBe(false);
    expect(call.ino).toBe(fstatSync(call.fd).ino);
    const all = file.syncsDone();
    expect(await settledYet(done)).toBe(false);
    expect(await settledYet(all)).toBe(false);
    // the writer closes (as an unload does) while the pool's fsync still waits
    file.close();
    call.release();
    await done;
    await all;
    expect(await settledYet(file.syncsDone())).toBe(true);
  });

  test("a failed fsync rejects with its error, and syncsDone still resolves", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    file.append({ type: "custom", customType: "a" });
    held = holdFsyncs();
    const done = file.syncInBackground();
    await held.reached(1);
    held.calls[0]!.release(ioError());
    await expect(done).rejects.toMatchObject({ code: "EIO" });
    await file.syncsDone();
  });

  test("a lost lock throws at the call, before any fsync is asked for", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    file.append({ type: "custom", customType: "a" });
    unlinkSync(lockPathFor(file.realPath));
    held = holdFsyncs();
    expect(() => file.syncInBackground()).toThrow(OwnershipLostError);
    expect(held.calls).toHaveLength(0);
  });
});
