import { describe, expect, test } from "bun:test";
import { readdir, readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { withFileLock } from "../src/index.ts";
import { put, rejection } from "./support/files.ts";

async function deadPid(): Promise<number> {
  const child = Bun.spawn(["true"]);
  await child.exited;
  return child.pid;
}

describe("cross-process file lock", () => {
  test("holds a lock file with pid and host during the critical section and removes it after", async () => {
    await using dir = await tempAgentDir();
    const target = join(dir.root, "f.json");
    const inside = await withFileLock(target, async () =>
      JSON.parse(await readFile(`${target}.lock`, "utf8")),
    );
    expect(inside).toMatchObject({ pid: process.pid, host: hostname() });
    expect(await readdir(dir.root)).not.toContain("f.json.lock");
  });

  test("releases the lock when the critical section throws", async () => {
    await using dir = await tempAgentDir();
    const target = join(dir.root, "f.json");
    const error = await rejection(
      withFileLock(target, async () => {
        throw new Error("boom");
      }),
    );
    expect(error.message).toBe("boom");
    expect((await readdir(dir.root)).filter((n) => n.includes("lock"))).toEqual([]);
  });

  test("a lock left by a dead process on this host is taken over", async () => {
    await using dir = await tempAgentDir();
    const target = join(dir.root, "f.json");
    await put(dir.root, "f.json.lock", {
      pid: await deadPid(),
      host: hostname(),
      startedAt: Date.now(),
      token: "x",
    });
    expect(await withFileLock(target, async () => "ran")).toBe("ran");
  });

  test("an unreadable (torn) lock and a very old foreign lock are taken over", async () => {
    await using dir = await tempAgentDir();
    const target = join(dir.root, "f.json");
    await put(dir.root, "f.json.lock", "{torn");
    expect(await withFileLock(target, async () => 1)).toBe(1);
    await put(dir.root, "f.json.lock", "42");
    expect(await withFileLock(target, async () => 3)).toBe(3);
    await put(dir.root, "f.json.lock", { pid: 1, host: "elsewhere", startedAt: 0, token: "y" });
    expect(await withFileLock(target, async () => 2)).toBe(2);
  });

  test("a lock held by a live process times out with internal", async () => {
    await using dir = await tempAgentDir();
    const target = join(dir.root, "f.json");
    const held = { pid: process.pid, host: hostname(), startedAt: Date.now(), token: "other" };
    await put(dir.root, "f.json.lock", held);
    const error = await rejection(withFileLock(target, async () => "never", { timeoutMs: 100 }));
    expect(error).toMatchObject({ code: "internal" });
    expect(JSON.parse(await readFile(`${target}.lock`, "utf8"))).toEqual(held);
  });

  test("nested waiters in one process run one at a time", async () => {
    await using dir = await tempAgentDir();
    const target = join(dir.root, "f.json");
    let active = 0;
    let maxActive = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        withFileLock(target, async () => {
          active++;
          maxActive = Math.max(maxActive, active);
          await readdir(dir.root); // yield to the other waiters mid-section
          active--;
        }),
      ),
    );
    expect(maxActive).toBe(1);
  });
});
