import { describe, expect, test } from "bun:test";
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import {
  ArchiveConflictError,
  archiveSession,
  deleteArchivedSession,
  isArchivedPath,
  SessionFile,
  type SessionStoreError,
  ThreadLockedElsewhereError,
  unarchiveSession,
} from "../src/index.ts";
import { tempDir } from "./helpers/temp-dir.ts";

async function transcript(dir: string, text = "hello"): Promise<SessionFile> {
  const file = await SessionFile.create({ dir, cwd: "/p" });
  file.append({ type: "message", message: { role: "user", content: text, timestamp: 1 } });
  file.close();
  return file;
}

function caught(run: () => unknown): SessionStoreError {
  try {
    run();
  } catch (error) {
    return error as SessionStoreError;
  }
  throw new Error("expected an error");
}

describe("archive and unarchive", () => {
  test("archive moves into archive/ beside the live files and unarchive moves it back, leaving no locks", async () => {
    await using dir = tempDir();
    const file = await transcript(dir.path);
    const bytes = readFileSync(file.path);
    const archived = archiveSession(file.path);
    expect(archived).toBe(join(dir.path, "archive", basename(file.path)));
    expect(existsSync(file.path)).toBe(false);
    expect(readFileSync(archived)).toEqual(bytes);
    expect(isArchivedPath(archived)).toBe(true);
    const back = unarchiveSession(archived);
    expect(back).toBe(file.path);
    expect(readFileSync(back)).toEqual(bytes);
    expect(readdirSync(dir.path).sort()).toEqual([basename(file.path), "archive"].sort());
    expect(readdirSync(join(dir.path, "archive"))).toEqual([]);
  });

  test("a destination collision is refused with archiveConflict naming the surviving files; nothing is overwritten", async () => {
    await using dir = tempDir();
    const file = await transcript(dir.path, "live");
    mkdirSync(join(dir.path, "archive"));
    const other = join(dir.path, "archive", basename(file.path));
    writeFileSync(other, "someone else's transcript\n");
    const error = caught(() => archiveSession(file.path));
    expect(error).toBeInstanceOf(ArchiveConflictError);
    expect(error.code).toBe("archiveConflict");
    expect(error.data).toMatchObject({ reason: "destinationExists", surviving: [file.path, other] });
    expect(readFileSync(other, "utf8")).toBe("someone else's transcript\n");
    expect(readFileSync(file.path, "utf8")).toContain("live");
  });

  test("both paths are owned during the move: a transcript owned elsewhere is not moved", async () => {
    await using dir = tempDir();
    const file = await transcript(dir.path);
    using owner = await SessionFile.openOwned(file.path);
    expect(caught(() => archiveSession(file.path)).code).toBe("threadLockedElsewhere");
    expect(existsSync(owner.path)).toBe(true);
  });

  test("a hard-linked transcript is refused with archiveConflict", async () => {
    await using dir = tempDir();
    const file = await transcript(dir.path);
    linkSync(file.path, join(dir.path, "copy.jsonl"));
    const error = caught(() => archiveSession(file.path));
    expect(error.code).toBe("archiveConflict");
    expect(error.data).toMatchObject({ reason: "hardLinked", surviving: [file.path] });
  });

  test("unarchiving a live transcript is threadNotArchived", async () => {
    await using dir = tempDir();
    const file = await transcript(dir.path);
    expect(caught(() => unarchiveSession(file.path)).code).toBe("threadNotArchived");
  });
});

describe("delete", () => {
  test("deletes only archived transcripts", async () => {
    await using dir = tempDir();
    const file = await transcript(dir.path);
    const error = await deleteArchivedSession(file.path).catch((e: SessionStoreError) => e);
    expect(error?.code).toBe("threadNotArchived");
    expect(existsSync(file.path)).toBe(true);
    const archived = archiveSession(file.path);
    await deleteArchivedSession(archived, file.id);
    expect(existsSync(archived)).toBe(false);
    expect(readdirSync(join(dir.path, "archive"))).toEqual([]);
  });

  test("refuses a transcript owned elsewhere, a hard-linked one, a swapped one and a missing one", async () => {
    await using dir = tempDir();
    const file = await transcript(dir.path);
    const archived = archiveSession(file.path);

    const owner = await SessionFile.openOwned(archived);
    const locked = await deleteArchivedSession(archived).catch((e: SessionStoreError) => e);
    expect(locked).toBeInstanceOf(ThreadLockedElsewhereError);
    owner.close();

    linkSync(archived, join(dir.path, "elsewhere.jsonl"));
    const linked = await deleteArchivedSession(archived).catch((e: SessionStoreError) => e);
    expect(linked?.code).toBe("archiveConflict");
    expect(linked?.data).toMatchObject({ reason: "hardLinked" });
    expect(existsSync(archived)).toBe(true);

    const wrongId = await deleteArchivedSession(join(dir.path, "elsewhere.jsonl")).catch(
      (e: SessionStoreError) => e,
    );
    expect(wrongId?.code).toBe("threadNotArchived");
    unlinkSync(join(dir.path, "elsewhere.jsonl"));
    const swapped = await deleteArchivedSession(archived, "another-thread").catch(
      (e: SessionStoreError) => e,
    );
    expect(swapped?.code).toBe("threadNotFound");
    expect(existsSync(archived)).toBe(true);

    const missing = await deleteArchivedSession(join(dir.path, "archive", "nope.jsonl")).catch(
      (e: SessionStoreError) => e,
    );
    expect(missing?.code).toBe("threadNotFound");
  });
});
