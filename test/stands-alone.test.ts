/**
 * A clone of the repository must test on its own: nothing it tracks may point at the
 * spec, fixtures or seeds that sit beside the repository on the machine it was written
 * on. Fixtures live under `test/fixtures`, protocol facts in `docs/protocol-reference.md`.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");

/** The folder names joined by a slash or as separate path segments; built from parts so this file does not match itself. */
const OUTSIDE = new RegExp(["shared", "(fixtures|spec|seeds)"].join(`(/|["'],\\s*["'])`));

function trackedTextFiles(): string[] {
  const listed = Bun.spawnSync(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
  });
  if (listed.exitCode !== 0) throw new Error(`git ls-files failed: ${listed.stderr.toString()}`);
  return listed.stdout
    .toString()
    .split("\0")
    .filter((path) => path !== "" && !path.startsWith("test/fixtures/"));
}

test("no file in the repository refers to the shared spec, fixtures or seeds outside it", () => {
  const files = trackedTextFiles();
  expect(files).toContain("docs/protocol-reference.md");
  const offenders = files.filter((path) => {
    try {
      return OUTSIDE.test(readFileSync(join(root, path), "utf8"));
    } catch {
      return false; // deleted in the work tree but still in the index
    }
  });
  expect(offenders).toEqual([]);
});

test("the pi session fixtures are in the repository", () => {
  const files = Bun.spawnSync(["git", "ls-files", "test/fixtures/pi-sessions"], { cwd: root })
    .stdout.toString()
    .trim()
    .split("\n");
  expect(files.sort()).toEqual([
    "test/fixtures/pi-sessions/before-compaction.jsonl",
    "test/fixtures/pi-sessions/large-session.jsonl",
  ]);
});
