import { afterEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  watch,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileSearch, type FileSearch, FileSearchError } from "../src/file-search.ts";
import { Changes } from "./support/wait-for.ts";

const dirs: string[] = [];
const services: FileSearch[] = [];
afterEach(() => {
  for (const s of services.splice(0)) s.shutdown();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix = "fs-search-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function project(files: string[]): string {
  const dir = tempDir();
  for (const f of files) {
    mkdirSync(join(dir, f, ".."), { recursive: true });
    writeFileSync(join(dir, f), "x");
  }
  return dir;
}

/**
 * A stand-in `fd`: a real executable that records each run, prints the lines of
 * `$cwd/out`, waits while `$cwd/hold` exists, and exits with the code in `$cwd/exit`.
 */
function fakeFd(): string {
  const dir = tempDir("fake-fd-");
  const script = join(dir, "fd");
  writeFileSync(
    script,
    `#!/bin/sh
echo run >> "$(pwd)/runs"
[ -f "$(pwd)/out" ] && cat "$(pwd)/out"
while [ -e "$(pwd)/hold" ]; do sleep 0.01; done
exit "$(cat "$(pwd)/exit" 2>/dev/null || echo 0)"
`,
  );
  chmodSync(script, 0o755);
  return script;
}

function runs(cwd: string): number {
  return existsSync(join(cwd, "runs")) ? readFileSync(join(cwd, "runs"), "utf8").split("\n").length - 1 : 0;
}

function service(options: Parameters<typeof createFileSearch>[0] = {}): FileSearch {
  const s = createFileSearch(options);
  services.push(s);
  return s;
}

/** A service whose `slots` are notified whenever its running or queued listings change. */
function observedService(options: Parameters<typeof createFileSearch>[0] = {}): {
  s: FileSearch;
  slots: Changes;
} {
  const slots = new Changes();
  const s = service({ ...options, onListingStateChange: () => slots.notify() });
  return { s, slots };
}

/** Resolves once `check()` holds, re-checking whenever an entry of `dir` changes (the fake fd's `runs`). */
async function untilIn(dir: string, check: () => boolean, what: string): Promise<void> {
  const changes = new Changes();
  const watcher = watch(dir, () => changes.notify());
  try {
    await changes.until(check, what);
  } finally {
    watcher.close();
  }
}

async function rejection(promise: Promise<unknown>): Promise<FileSearchError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FileSearchError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("file/search", () => {
  test("lists with the real fd and returns cwd-relative paths with scores and indices", async () => {
    const cwd = project(["src/config/settings.ts", "src/index.ts", ".github/ci.yml", "README.md"]);
    mkdirSync(join(cwd, ".git"));
    writeFileSync(join(cwd, ".git", "config"), "x");
    const result = await service().search({ cwd, query: "src/config" });
    expect(result.truncated).toBe(false);
    expect(result.files[0]!.path).toBe("src/config/settings.ts");
    expect(result.files[0]!.indices.length).toBe("src/config".length);
    expect(typeof result.files[0]!.score).toBe("number");
    const all = await service().search({ cwd, query: "i" });
    expect(all.files.map((f) => f.path)).toContain(".github/ci.yml");
    expect(all.files.some((f) => f.path.startsWith(".git/"))).toBe(false);
  });

  test("fd is missing: toolMissing", async () => {
    const cwd = project(["a.ts"]);
    const error = await rejection(
      service({ fdCandidates: ["knightcode-no-such-fd", "/nonexistent/fd"] }).search({ cwd, query: "a" }),
    );
    expect(error.code).toBe("toolMissing");
  });

  test("a cwd that is not a directory is invalidParams", async () => {
    const error = await rejection(service().search({ cwd: join(tmpdir(), "no-such-dir-xyz"), query: "a" }));
    expect(error.code).toBe("invalidParams");
  });

  test("listings are cached for ten seconds per cwd", async () => {
    let t = 0;
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "out"), "a.ts\nb.ts\n");
    const s = service({ fdCandidates: [fd], now: () => t });
    await s.search({ cwd, query: "a" });
    t += 9_999;
    await s.search({ cwd, query: "b" });
    expect(runs(cwd)).toBe(1);
    t += 1;
    await s.search({ cwd, query: "b" });
    expect(runs(cwd)).toBe(2);
  });

  test("at most eight cwds stay cached; the least recently used is evicted", async () => {
    const fd = fakeFd();
    const s = service({ fdCandidates: [fd] });
    const cwds = Array.from({ length: 9 }, () => {
      const cwd = tempDir();
      writeFileSync(join(cwd, "out"), "a.ts\n");
      return cwd;
    });
    for (const cwd of cwds) await s.search({ cwd, query: "a" });
    expect(s.stats().cachedCwds).toBe(8);
    await s.search({ cwd: cwds[0]!, query: "a" });
    expect(runs(cwds[0]!)).toBe(2);
    await s.search({ cwd: cwds[8]!, query: "a" });
    expect(runs(cwds[8]!)).toBe(1);
  });

  test("at most two listings run at once; the third waits for a slot", async () => {
    const fd = fakeFd();
    const { s, slots } = observedService({ fdCandidates: [fd] });
    const cwds = Array.from({ length: 3 }, () => {
      const cwd = tempDir();
      writeFileSync(join(cwd, "out"), "a.ts\n");
      writeFileSync(join(cwd, "hold"), "");
      return cwd;
    });
    const searches = cwds.map((cwd) => s.search({ cwd, query: "a" }));
    await slots.until(
      () => s.stats().activeListings === 2 && s.stats().queuedListings === 1,
      "two active listings",
    );
    expect(runs(cwds[2]!)).toBe(0);
    for (const cwd of cwds) rmSync(join(cwd, "hold"));
    const results = await Promise.all(searches);
    expect(results.every((r) => r.files.length === 1)).toBe(true);
    expect(runs(cwds[2]!)).toBe(1);
  });

  test("the path cap truncates, and the bounded listing is cached", async () => {
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "out"), Array.from({ length: 50 }, (_, i) => `f${i}.ts`).join("\n") + "\n");
    const s = service({ fdCandidates: [fd], maxPaths: 10 });
    const result = await s.search({ cwd, query: "f", limit: 200 });
    expect(result.truncated).toBe(true);
    expect(result.files.length).toBe(10);
    const again = await s.search({ cwd, query: "f", limit: 200 });
    expect(again.truncated).toBe(true);
    expect(runs(cwd)).toBe(1);
  });

  test("the byte cap truncates at a whole line", async () => {
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "out"), "aaaa\nbbbb\ncccc\n");
    const result = await service({ fdCandidates: [fd], maxBytes: 12 }).search({ cwd, query: "a", limit: 10 });
    expect(result.truncated).toBe(true);
    const all = await service({ fdCandidates: [fd], maxBytes: 12 }).search({ cwd, query: "b", limit: 10 });
    expect(all.files.map((f) => f.path)).toEqual(["bbbb"]);
  });

  test("the default cap is 200,000 paths", async () => {
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "out"), Array.from({ length: 200_010 }, (_, i) => `p${i}`).join("\n") + "\n");
    const result = await service({ fdCandidates: [fd] }).search({ cwd, query: "p20000", limit: 200 });
    expect(result.truncated).toBe(true);
    expect(result.files.some((f) => f.path === "p200005")).toBe(false);
    expect(result.files.some((f) => f.path === "p199999")).toBe(false);
    expect(result.files.some((f) => f.path === "p20000")).toBe(true);
  });

  test("partial output of a failed listing is used but not cached", async () => {
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "out"), "a.ts\n");
    writeFileSync(join(cwd, "exit"), "1");
    const s = service({ fdCandidates: [fd] });
    expect((await s.search({ cwd, query: "a" })).files.map((f) => f.path)).toEqual(["a.ts"]);
    await s.search({ cwd, query: "a" });
    expect(runs(cwd)).toBe(2);
  });

  test("an fd that writes a lot to stderr (unreadable directories) is not blocked by the pipe", async () => {
    const dir = tempDir("chatty-fd-");
    const fd = join(dir, "fd");
    // 1 MiB of complaints, far more than a pipe holds, before the one path
    writeFileSync(fd, `#!/bin/sh\nhead -c 1048576 /dev/zero | tr '\\0' 'e' >&2\necho found.ts\n`);
    chmodSync(fd, 0o755);
    const cwd = tempDir();
    const s = service({ fdCandidates: [fd], timeoutMs: 5_000 });
    const result = await s.search({ cwd, query: "found" });
    expect(result.files.map((f) => f.path)).toEqual(["found.ts"]);
  });

  test("a failed listing with no output is internal", async () => {
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "exit"), "1");
    expect((await rejection(service({ fdCandidates: [fd] }).search({ cwd, query: "a" }))).code).toBe(
      "internal",
    );
  });

  test("a listing over the timeout is internal", async () => {
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "out"), "a.ts\n");
    writeFileSync(join(cwd, "hold"), "");
    const error = await rejection(service({ fdCandidates: [fd], timeoutMs: 50 }).search({ cwd, query: "a" }));
    expect(error.code).toBe("internal");
    expect(error.message).toContain("50 ms");
  });

  test("a newer search with the same searchId supersedes the older at once", async () => {
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "out"), "a.ts\n");
    writeFileSync(join(cwd, "hold"), "");
    const s = service({ fdCandidates: [fd] });
    const first = s.search({ cwd, query: "a", searchId: "composer" });
    const second = s.search({ cwd, query: "a", searchId: "composer" });
    expect(await first).toEqual({ files: [], truncated: false });
    rmSync(join(cwd, "hold"));
    expect((await second).files.length).toBe(1);
  });

  test("a listing nobody waits for any more is aborted and not cached", async () => {
    const fd = fakeFd();
    const cwdA = tempDir();
    const cwdB = tempDir();
    writeFileSync(join(cwdA, "hold"), "");
    writeFileSync(join(cwdB, "out"), "b.ts\n");
    const { s, slots } = observedService({ fdCandidates: [fd] });
    const first = s.search({ cwd: cwdA, query: "a", searchId: "x" });
    await untilIn(cwdA, () => runs(cwdA) === 1, "the first listing to start");
    const second = s.search({ cwd: cwdB, query: "b", searchId: "x" });
    expect(await first).toEqual({ files: [], truncated: false });
    expect((await second).files.length).toBe(1);
    await slots.until(() => s.stats().activeListings === 0, "the abandoned listing to end");
    expect(s.stats().cachedCwds).toBe(1);
  });

  test("a search right after its cwd's listing was abandoned starts a fresh listing instead of failing", async () => {
    const fd = fakeFd();
    const cwdA = tempDir();
    const cwdB = tempDir();
    writeFileSync(join(cwdA, "out"), "a.ts\n");
    writeFileSync(join(cwdA, "hold"), "");
    writeFileSync(join(cwdB, "out"), "b.ts\n");
    const s = service({ fdCandidates: [fd] });
    const first = s.search({ cwd: cwdA, query: "a", searchId: "x" });
    // superseded from another cwd: cwdA's listing has no waiter left and is aborted
    const second = s.search({ cwd: cwdB, query: "b", searchId: "x" });
    // asked before the killed listing has even exited
    const third = s.search({ cwd: cwdA, query: "a" });
    expect(await first).toEqual({ files: [], truncated: false });
    expect((await second).files.map((f) => f.path)).toEqual(["b.ts"]);
    rmSync(join(cwdA, "hold"));
    expect((await third).files.map((f) => f.path)).toEqual(["a.ts"]);
  });

  test("an owner that went away withdraws its searches: they settle empty, others keep waiting", async () => {
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "out"), "a.ts\n");
    writeFileSync(join(cwd, "hold"), "");
    const s = service({ fdCandidates: [fd] });
    const gone = s.search({ cwd, query: "a", owner: "c1" });
    const staying = s.search({ cwd, query: "a", owner: "c2" });
    s.cancelOwner("c1");
    // settles although the listing is still held
    expect(await gone).toEqual({ files: [], truncated: false });
    rmSync(join(cwd, "hold"));
    expect((await staying).files.map((f) => f.path)).toEqual(["a.ts"]);
  });

  test("a listing whose only waiter's owner went away is aborted; the next search lists afresh", async () => {
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "out"), "a.ts\n");
    writeFileSync(join(cwd, "hold"), "");
    const s = service({ fdCandidates: [fd] });
    const gone = s.search({ cwd, query: "a", owner: "c1" });
    s.cancelOwner("c1");
    expect(await gone).toEqual({ files: [], truncated: false });
    const next = s.search({ cwd, query: "a" });
    rmSync(join(cwd, "hold"));
    expect((await next).files.map((f) => f.path)).toEqual(["a.ts"]);
    // the abandoned listing never ran: only the fresh one did
    expect(runs(cwd)).toBe(1);
  });

  test("shutdown rejects pending searches with shuttingDown, and later ones too", async () => {
    const fd = fakeFd();
    const cwd = tempDir();
    writeFileSync(join(cwd, "hold"), "");
    const s = service({ fdCandidates: [fd] });
    const pending = s.search({ cwd, query: "a", searchId: "q" });
    s.shutdown();
    expect((await rejection(pending)).code).toBe("shuttingDown");
    expect((await rejection(s.search({ cwd, query: "a" }))).code).toBe("shuttingDown");
  });
});
