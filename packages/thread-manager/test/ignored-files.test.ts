/** The ignored files a `/undo` checkpoint force-adds, and paths as the repository names them. */
import { describe, expect, test } from "bun:test";
import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  chooseIgnoredFiles,
  MAX_IGNORED_FILE_BYTES,
  MAX_IGNORED_FILES,
  MAX_IGNORED_TOTAL_BYTES,
  repoPath,
} from "../src/checkpoints/ignored-files.ts";

function tempRoot(): { root: string; [Symbol.dispose](): void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "knightcode-ignored-")));
  return { root, [Symbol.dispose]: () => rmSync(root, { recursive: true, force: true }) };
}

describe("repoPath", () => {
  test("names a path inside the root relative to it, and nothing for the root itself or outside it", () => {
    using dir = tempRoot();
    expect(repoPath(dir.root, join(dir.root, "a", "b.txt"))).toBe("a/b.txt");
    expect(repoPath(dir.root, dir.root)).toBeUndefined();
    expect(repoPath(dir.root, join(dir.root, "..", "elsewhere.txt"))).toBeUndefined();
  });

  test("a path spelled through a symlinked folder is found through its real folder", () => {
    using dir = tempRoot();
    const repo = join(dir.root, "repo");
    mkdirSync(join(repo, "src"), { recursive: true });
    symlinkSync(repo, join(dir.root, "link"));
    expect(repoPath(repo, join(dir.root, "link", "src", "x.ts"))).toBe("src/x.ts");
  });
});

describe("chooseIgnoredFiles", () => {
  test("takes the preferred files first, skips folders, missing and oversized files, and each path once", () => {
    using dir = tempRoot();
    writeFileSync(join(dir.root, ".env"), "A=1\n");
    writeFileSync(join(dir.root, "touched.cfg"), "x\n");
    writeFileSync(join(dir.root, "huge.log"), Buffer.alloc(MAX_IGNORED_FILE_BYTES + 1));
    mkdirSync(join(dir.root, "dist"));
    const chosen = chooseIgnoredFiles(
      dir.root,
      ["touched.cfg", "gone.cfg"],
      [".env", "dist/", "huge.log", "touched.cfg"],
    );
    expect(chosen).toEqual(["touched.cfg", ".env"]);
  });

  test("stops at the total byte budget and at the file count", () => {
    using dir = tempRoot();
    // sparse files: the budget counts their size, the disk holds nothing
    const big = Array.from({ length: 17 }, (_, i) => `big${i}.bin`);
    for (const name of big) truncateSync(createFile(join(dir.root, name)), MAX_IGNORED_FILE_BYTES);
    expect(chooseIgnoredFiles(dir.root, [], big)).toHaveLength(
      MAX_IGNORED_TOTAL_BYTES / MAX_IGNORED_FILE_BYTES,
    );
    const small = Array.from({ length: MAX_IGNORED_FILES + 1 }, (_, i) => `s${i}.txt`);
    for (const name of small) createFile(join(dir.root, name));
    expect(chooseIgnoredFiles(dir.root, [], small)).toEqual(small.slice(0, MAX_IGNORED_FILES));
  });
});

function createFile(path: string): string {
  writeFileSync(path, "");
  return path;
}
