import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linkedGitMounts, OWNER_RECORD } from "../src/linked-git-dir.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): void {
  const run = Bun.spawnSync(["git", "-c", "user.name=T", "-c", "user.email=t@e", ...args], { cwd });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
}

/** A repository with one commit and two linked worktrees (`a` on knightcode/a, `b` on knightcode/b). */
function repoWithWorktrees() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "linked-git-")));
  dirs.push(root);
  const repo = join(root, "repo");
  git(root, "init", "-q", "-b", "main", repo);
  writeFileSync(join(repo, "f.txt"), "x\n");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "initial");
  for (const name of ["a", "b"])
    git(repo, "worktree", "add", "-q", "-b", `knightcode/${name}`, join(root, name));
  return { root, repo, common: join(repo, ".git") };
}

describe("linkedGitMounts", () => {
  test("a main checkout (a .git folder) and a folder without .git need nothing", () => {
    const { root, repo } = repoWithWorktrees();
    expect(linkedGitMounts([repo, root], false)).toEqual({ readable: [], writable: [], readOnly: [] });
  });

  test("a worktree the server did not make sees the common dir read-only and nothing more", () => {
    const { root, common } = repoWithWorktrees();
    expect(linkedGitMounts([join(root, "a")], false)).toEqual({
      readable: [common],
      writable: [],
      readOnly: [],
    });
  });

  test("an owned worktree writes objects, its admin dir and its branch's folders; the steering files and other refs stay read-only", () => {
    const { root, common } = repoWithWorktrees();
    const admin = join(common, "worktrees", "a");
    writeFileSync(join(admin, OWNER_RECORD), "{}");
    const mounts = linkedGitMounts([join(root, "a")], false);
    expect(mounts.readable).toEqual([common]);
    expect(mounts.writable).toEqual([
      join(common, "objects"),
      admin,
      join(common, "refs/heads/knightcode"),
      join(common, "logs/refs/heads/knightcode"),
    ]);
    // config.worktree is made (empty) so that it can be held read-only
    expect(readFileSync(join(admin, "config.worktree"), "utf8")).toBe("");
    expect(mounts.readOnly).toEqual(
      expect.arrayContaining([
        join(admin, OWNER_RECORD),
        join(admin, "gitdir"),
        join(admin, "commondir"),
        join(admin, "config.worktree"),
        join(common, "objects/info"),
        join(common, "refs/heads/knightcode/b"),
        join(common, "logs/refs/heads/knightcode/b"),
      ]),
    );
    expect(mounts.readOnly).not.toContain(join(common, "refs/heads/knightcode/a"));
  });

  test("allowGitWrites makes the whole common dir writable, like a project's own .git", () => {
    const { root, common } = repoWithWorktrees();
    expect(linkedGitMounts([join(root, "b")], true)).toEqual({
      readable: [],
      writable: [common],
      readOnly: [],
    });
  });
});
