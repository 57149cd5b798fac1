import { describe, expect, test } from "bun:test";
import {
  existsSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import {
  isPidAlive,
  lockPathFor,
  OwnershipLostError,
  processStartTime,
  readLockInfo,
  SessionFile,
  SessionLock,
  type SessionStoreError,
  ThreadLockedElsewhereError,
} from "../src/index.ts";
import { lineReader } from "./helpers/lines.ts";
import { tempDir } from "./helpers/temp-dir.ts";

const OWN = join(import.meta.dir, "helpers/own-session.ts");

function spawnOwner(path: string) {
  const proc = Bun.spawn(["bun", OWN, path], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  return { proc, lines: lineReader(proc.stdout) };
}

async function deadPid(): Promise<number> {
  const proc = Bun.spawn(["bun", "-e", ""], { stdout: "ignore", stderr: "ignore" });
  await proc.exited;
  return proc.pid;
}

async function newTranscript(dir: string): Promise<string> {
  const file = await SessionFile.create({ dir, cwd: "/p" });
  file.close();
  return file.path;
}

describe("ownership", () => {
  test("two processes racing to own one transcript: exactly one wins, the other gets threadLockedElsewhere", async () => {
    await using dir = tempDir();
    const path = await newTranscript(dir.path);
    const alias = join(dir.path, "alias.jsonl");
    symlinkSync(path, alias);
    const a = spawnOwner(path);
    const b = spawnOwner(alias);
    a.proc.stdin.write("go\n");
    b.proc.stdin.write("go\n");
    a.proc.stdin.flush();
    b.proc.stdin.flush();
    const results = [await a.lines.next(), await b.lines.next()].sort();
    expect(results).toEqual(["locked:threadLockedElsewhere", "won"]);

    // A symlink alias contends for the same lock, in another process and in this one.
    const c = spawnOwner(alias);
    c.proc.stdin.write("go\n");
    c.proc.stdin.flush();
    expect(await c.lines.next()).toBe("locked:threadLockedElsewhere");
    const here = await SessionFile.openOwned(alias).catch((e: unknown) => e);
    expect(here).toBeInstanceOf(ThreadLockedElsewhereError);
    expect((here as ThreadLockedElsewhereError).data).toMatchObject({ host: hostname() });

    for (const p of [a, b, c]) p.proc.stdin.end();
    await Promise.all([a.proc.exited, b.proc.exited, c.proc.exited]);
    expect(existsSync(lockPathFor(path))).toBe(false);
    using owned = await SessionFile.openOwned(alias);
    expect(owned.realPath).toBe(path);
  });

  test("the lock file holds pid, host and start time", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const info = readLockInfo(lockPathFor(file.realPath))!;
    expect(info.pid).toBe(process.pid);
    expect(info.host).toBe(hostname());
    expect(Math.abs(info.startedAt - performance.timeOrigin)).toBeLessThan(1000);
  });

  test("a lock left by a dead pid on this host is taken over", async () => {
    await using dir = tempDir();
    const path = await newTranscript(dir.path);
    const pid = await deadPid();
    expect(isPidAlive(pid)).toBe(false);
    writeFileSync(lockPathFor(path), JSON.stringify({ pid, host: hostname(), startedAt: 1, token: "old" }));
    using file = await SessionFile.openOwned(path);
    expect(readLockInfo(lockPathFor(path))?.pid).toBe(process.pid);
    expect(file.owned).toBe(true);
  });

  test("a lock of a live process, or of any process on another host, is not taken over", async () => {
    await using dir = tempDir();
    const path = await newTranscript(dir.path);
    const pid = await deadPid();
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({ pid, host: "elsewhere.example", startedAt: 1, token: "x" }),
    );
    const remote = await SessionFile.openOwned(path).catch((e: unknown) => e);
    expect((remote as ThreadLockedElsewhereError).code).toBe("threadLockedElsewhere");
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({
        pid: process.ppid,
        host: hostname(),
        startedAt: processStartTime(process.ppid) ?? 1,
        token: "y",
      }),
    );
    const live = await SessionFile.openOwned(path).catch((e: unknown) => e);
    expect((live as ThreadLockedElsewhereError).code).toBe("threadLockedElsewhere");
    expect(readLockInfo(lockPathFor(path))?.token).toBe("y");
  });

  test("a live pid that started after the lock's owner is a reused pid, and its lock is taken over", async () => {
    await using dir = tempDir();
    const path = await newTranscript(dir.path);
    const child = Bun.spawn(["bun", "-e", "await Bun.stdin.stream().getReader().read()"], {
      stdin: "pipe",
      stdout: "ignore",
    });
    try {
      const started = processStartTime(child.pid);
      expect(started).toBeDefined();
      writeFileSync(
        lockPathFor(path),
        JSON.stringify({ pid: child.pid, host: hostname(), startedAt: started!, token: "live" }),
      );
      expect(
        (
          await SessionFile.openOwned(path).then(
            () => undefined,
            (e: SessionStoreError) => e,
          )
        )?.code,
      ).toBe("threadLockedElsewhere");
      writeFileSync(
        lockPathFor(path),
        JSON.stringify({ pid: child.pid, host: hostname(), startedAt: started! - 60_000, token: "reused" }),
      );
      using owned = await SessionFile.openOwned(path);
      expect(owned.owned).toBe(true);
      expect(readLockInfo(lockPathFor(path))?.pid).toBe(process.pid);
    } finally {
      child.stdin.end();
      await child.exited;
    }
  });

  test("an unreadable lock file is honoured while fresh and taken over once old", async () => {
    await using dir = tempDir();
    const path = await newTranscript(dir.path);
    writeFileSync(lockPathFor(path), "");
    const fresh = await SessionFile.openOwned(path).then(
      () => undefined,
      (e: SessionStoreError) => e,
    );
    expect(fresh?.code).toBe("threadLockedElsewhere");
    expect(fresh?.data).toMatchObject({ reason: "lockBeingCreated" });
    utimesSync(lockPathFor(path), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    using owned = await SessionFile.openOwned(path);
    expect(owned.owned).toBe(true);
  });

  test("a second open in the same process is refused; release removes only our own lock", async () => {
    await using dir = tempDir();
    const path = await newTranscript(dir.path);
    const lock = SessionLock.acquire(path);
    expect(() => SessionLock.acquire(path)).toThrow(ThreadLockedElsewhereError);
    // Someone replaced our lock file: we must not delete theirs.
    writeFileSync(`${lock.lockPath}.new`, "{}");
    renameSync(`${lock.lockPath}.new`, lock.lockPath);
    expect(lock.held).toBe(false);
    lock.release();
    expect(readFileSync(lock.lockPath, "utf8")).toBe("{}");
  });

  test("a lock removed and re-created by another owner is lost, even when the new lock file reuses the inode", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    file.append({ type: "custom", customType: "a" });
    const lockPath = lockPathFor(file.realPath);
    const size = statSync(file.path).size;
    // Another process takes over (unlink, then an O_EXCL create); filesystems such as ext4
    // hand the freed inode number straight to the new file.
    for (let i = 0; i < 20; i++) {
      rmSync(lockPath);
      writeFileSync(lockPath, JSON.stringify({ pid: 1, host: "elsewhere", startedAt: 0, token: `t${i}` }), {
        flag: "wx",
      });
      expect(() => file.append({ type: "custom", customType: "b" })).toThrow(OwnershipLostError);
      expect(() => file.sync()).toThrow(OwnershipLostError);
    }
    expect(statSync(file.path).size).toBe(size);
    expect(file.owned).toBe(false);
    file.close();
    // Closing never removes the other owner's lock.
    expect(readLockInfo(lockPath)?.token).toBe("t19");
  });
});
