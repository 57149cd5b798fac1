import { describe, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  linkSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import {
  groupTurns,
  InvalidSessionError,
  lockPathFor,
  OwnershipLostError,
  SessionFile,
  ThreadLockedElsewhereError,
  type ThreadNotFoundError,
} from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";

/** Session files written by pi, copied into the repository so a clone tests on its own. */
const FIXTURES = join(import.meta.dir, "../../../test/fixtures/pi-sessions");

describe("SessionFile", () => {
  test("create writes the v3 header durably under the spec's file name and owns the file", async () => {
    await using dir = tempDir();
    const now = new Date("2026-11-30T00:12:09.123Z");
    using file = await SessionFile.create({
      dir: join(dir.path, "sub"),
      cwd: "/proj",
      now,
      forkedFromId: "p1",
    });
    expect(basename(file.path)).toBe(`2026-11-30T00-12-09-123Z_${file.id}.jsonl`);
    expect(file.updatedAt).toBe(now.toISOString());
    const header = JSON.parse(readFileSync(file.path, "utf8").split("\n")[0]!);
    expect(header).toMatchObject({
      type: "session",
      version: 3,
      id: file.id,
      cwd: "/proj",
      forkedFromId: "p1",
    });
    expect(existsSync(lockPathFor(file.realPath))).toBe(true);
    expect(file.owned).toBe(true);
  });

  test("append assigns id, parentId = leaf and timestamp, and each entry reaches the file at once", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const a = file.append({ type: "message", message: { role: "user", content: "hi", timestamp: 1 } });
    expect(a.parentId).toBeNull();
    expect(readFileSync(file.path, "utf8").trim().split("\n")).toHaveLength(2);
    const b = file.append({ type: "session_info", name: "named" });
    expect(b.parentId).toBe(a.id);
    expect(file.leafId).toBe(b.id);
    expect(readFileSync(file.path, "utf8").trim().split("\n")).toHaveLength(3);
    expect(file.name).toBe("named");
    expect(file.updatedAt).toBe(b.timestamp);
    expect(file.entryBytes(b.id)).toBe(Buffer.byteLength(`${JSON.stringify(b)}\n`));
  });

  test("setLeaf branches: the next append is a child of the chosen entry, and branch() walks root to leaf", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const a = file.append({ type: "custom", customType: "a" });
    const b = file.append({ type: "custom", customType: "b" });
    file.setLeaf(a.id);
    const c = file.append({ type: "custom", customType: "c" });
    expect(c.parentId).toBe(a.id);
    expect(file.branch().map((e) => e.id)).toEqual([a.id, c.id]);
    expect(file.branch(b.id).map((e) => e.id)).toEqual([a.id, b.id]);
    expect(file.entries.map((e) => e.id)).toEqual([a.id, b.id, c.id]);
    expect(() => file.setLeaf("nope")).toThrow();
  });

  test("reopening restores entries and the leaf is the last entry in the file", async () => {
    await using dir = tempDir();
    const file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const a = file.append({ type: "custom", customType: "a" });
    file.sync();
    file.close();
    using again = await SessionFile.openOwned(file.path);
    expect(again.entries.map((e) => e.id)).toEqual([a.id]);
    expect(again.leafId).toBe(a.id);
    expect(again.append({ type: "custom", customType: "b" }).parentId).toBe(a.id);
  });

  test("a torn last line is ignored on read and moved aside into a sibling file before the owner appends", async () => {
    await using dir = tempDir();
    const file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const a = file.append({ type: "custom", customType: "a" });
    file.close();
    const torn = '{"type":"custom","id":"deadbeef","parentId":"';
    writeFileSync(file.path, torn, { flag: "a" });
    const before = readFileSync(file.path);

    const reader = await SessionFile.openReadOnly(file.path);
    expect(reader.entries.map((e) => e.id)).toEqual([a.id]);
    expect(readFileSync(file.path)).toEqual(before);

    using owner = await SessionFile.openOwned(file.path);
    expect(owner.tornTailSavedTo).toBeDefined();
    expect(readFileSync(owner.tornTailSavedTo!, "utf8")).toBe(torn);
    owner.append({ type: "custom", customType: "b" });
    const lines = readFileSync(file.path, "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(["session", "custom", "custom"]);
  });

  test("a last entry missing only its newline is kept and the next append starts on a new line", async () => {
    await using dir = tempDir();
    const file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    file.append({ type: "custom", customType: "a" });
    file.close();
    writeFileSync(file.path, readFileSync(file.path, "utf8").replace(/\n$/, ""));
    using owner = await SessionFile.openOwned(file.path);
    owner.append({ type: "custom", customType: "b" });
    const reread = await SessionFile.openReadOnly(file.path);
    expect(reread.entries.map((e) => (e.type === "custom" ? e.customType : ""))).toEqual(["a", "b"]);
  });

  test("read-only opens never lock and never write, even for old versions and torn tails", async () => {
    await using dir = tempDir();
    const path = join(dir.path, "pi.jsonl");
    copyFileSync(join(FIXTURES, "large-session.jsonl"), path);
    writeFileSync(path, '{"type":"mess', { flag: "a" });
    const before = readFileSync(path);
    const mtime = statSync(path).mtimeMs;
    const file = await SessionFile.openReadOnly(path);
    expect(file.readOnly).toBe(true);
    expect(file.sourceVersion).toBe(1);
    expect(() => file.append({ type: "custom", customType: "x" })).toThrow();
    expect(existsSync(lockPathFor(file.realPath))).toBe(false);
    expect(readFileSync(path)).toEqual(before);
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(readdirSync(dir.path)).toEqual(["pi.jsonl"]);
  });

  test("an owned open migrates a v1 file on disk to v3, keeping the ids it had in memory", async () => {
    await using dir = tempDir();
    const path = join(dir.path, "pi.jsonl");
    copyFileSync(join(FIXTURES, "before-compaction.jsonl"), path);
    const readOnly = await SessionFile.openReadOnly(path);
    const owner = await SessionFile.openOwned(path);
    owner.close();
    const lines = readFileSync(path, "utf8").trim().split("\n");
    expect(JSON.parse(lines[0]!).version).toBe(3);
    expect(lines.slice(1).map((l) => JSON.parse(l).id)).toEqual(readOnly.entries.map((e) => e.id));
    const reread = await SessionFile.openReadOnly(path);
    expect(reread.sourceVersion).toBe(3);
    expect(reread.context().messages).toEqual(readOnly.context().messages);
  });

  test("both pi fixtures load and their compaction-aware context builds", async () => {
    const compacted = await SessionFile.openReadOnly(join(FIXTURES, "before-compaction.jsonl"));
    const ctx = compacted.context();
    expect(compacted.header.parentSession).toContain("d97339c6");
    expect(ctx.compaction?.firstKeptEntryId).toBe((551).toString(16).padStart(8, "0"));
    expect(ctx.messages[0]!.role).toBe("compactionSummary");
    expect(ctx.messages.length).toBeLessThan(compacted.entries.length);
    expect(ctx.messages.some((m) => m.role === "bashExecution")).toBe(true);
    expect(ctx.model).toEqual({ provider: "anthropic", modelId: "claude-opus-4-5" });

    const large = await SessionFile.openReadOnly(join(FIXTURES, "large-session.jsonl"));
    const largeCtx = large.context();
    expect(largeCtx.compaction).toBeUndefined();
    expect(largeCtx.messages[0]!.role).toBe("user");
    expect(largeCtx.messages).toHaveLength(large.entries.filter((e) => e.type === "message").length);
    expect(groupTurns(large.branch()).turns).toHaveLength(88);
  });

  test("an owner that lost its lock reports OwnershipLostError instead of writing on", async () => {
    await using dir = tempDir();
    using file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    file.append({ type: "custom", customType: "a" });
    unlinkSync(lockPathFor(file.realPath));
    const size = statSync(file.path).size;
    let caught: unknown;
    try {
      file.append({ type: "custom", customType: "b" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OwnershipLostError);
    expect((caught as OwnershipLostError).code).toBe("ownershipLost");
    expect(statSync(file.path).size).toBe(size);
    expect(file.owned).toBe(false);
  });

  test("a hard-linked transcript is refused with threadLockedElsewhere and no lock is left behind", async () => {
    await using dir = tempDir();
    const file = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    file.close();
    linkSync(file.path, join(dir.path, "alias.jsonl"));
    const error = await SessionFile.openOwned(file.path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThreadLockedElsewhereError);
    expect((error as ThreadLockedElsewhereError).code).toBe("threadLockedElsewhere");
    expect((error as ThreadLockedElsewhereError).data).toMatchObject({ reason: "hardLinked" });
    expect(existsSync(lockPathFor(file.realPath))).toBe(false);
  });

  test("createFork copies the branch with its IDs and names the source in the header", async () => {
    await using dir = tempDir();
    using source = await SessionFile.create({ dir: dir.path, cwd: "/p" });
    const a = source.append({ type: "custom", customType: "a" });
    const b = source.append({ type: "custom", customType: "b" });
    source.setLeaf(a.id);
    source.append({ type: "custom", customType: "c" });
    using fork = await SessionFile.createFork(source, { dir: join(dir.path, "forks"), leafId: b.id });
    expect(fork.header).toMatchObject({ parentSession: source.realPath, forkedFromId: source.id, cwd: "/p" });
    expect(fork.entries.map((e) => [e.id, e.parentId])).toEqual([
      [a.id, null],
      [b.id, a.id],
    ]);
    expect(fork.append({ type: "custom", customType: "d" }).parentId).toBe(b.id);
    const reread = await SessionFile.openReadOnly(fork.path);
    expect(reread.entries.map((e) => e.id)).toEqual(fork.entries.map((e) => e.id));
  });

  test("a missing transcript is threadNotFound; a file without a header is invalidSession", async () => {
    await using dir = tempDir();
    const missing = await SessionFile.openReadOnly(join(dir.path, "none.jsonl")).catch((e: unknown) => e);
    expect((missing as ThreadNotFoundError).code).toBe("threadNotFound");
    const bad = join(dir.path, "bad.jsonl");
    writeFileSync(bad, '{"type":"custom"}\n');
    const invalid = await SessionFile.openOwned(bad).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidSessionError);
    expect(existsSync(lockPathFor(bad))).toBe(false);
  });
});
