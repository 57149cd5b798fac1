/**
 * Server-owned worktrees on a 10,000-file repository: (1) creating a worktree
 * (`git worktree add` of the whole tree, ownership record, include files); (2) the
 * latency of `turn/diff/updated` after a write: from the tool's change report to the
 * diff handed to the thread's subscribers (snapshot of the working files and the
 * diff against the turn's start, no coalescing wait: the first diff of a turn goes out
 * at once); (3) `thread/diff` of a change to 1,000 files.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bench } from "tinybench";
import { TurnDiffs } from "../packages/thread-manager/src/turns/turn-diffs.ts";
import { treeOf } from "../packages/thread-manager/src/worktrees/tree-snapshot.ts";
import { createWorktree } from "../packages/thread-manager/src/worktrees/worktree-create.ts";
import { diffWorkingTree } from "../packages/thread-manager/src/worktrees/worktree-diff.ts";

const FILES = 10_000;
const CHANGED = 1_000;
const root = mkdtempSync(join(tmpdir(), "knightcode-worktree-bench-"));
const repo = join(root, "repo");
const agentDir = join(root, "agent");
const git = (cwd: string, ...args: string[]) => {
  const run = Bun.spawnSync(["git", ...args], {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "b",
      GIT_AUTHOR_EMAIL: "b@b",
      GIT_COMMITTER_NAME: "b",
      GIT_COMMITTER_EMAIL: "b@b",
    },
  });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
};
const fileAt = (i: number) => join(`dir${i % 100}`, `file${i}.ts`);
mkdirSync(repo, { recursive: true });
git(repo, "init", "-q", "-b", "main");
for (let i = 0; i < FILES; i++) {
  const path = join(repo, fileAt(i));
  if (i < 100) mkdirSync(join(repo, `dir${i}`), { recursive: true });
  writeFileSync(path, `export const value${i} = ${i};\n// line two\n// line three\n`);
}
git(repo, "add", "-A");
git(repo, "commit", "-q", "-m", "10k files");

let n = 0;
const bench = new Bench({ iterations: 8, warmupIterations: 1 });
bench.add(`create a worktree of a ${FILES}-file repository`, async () => {
  await createWorktree({ cwd: repo, agentDir, name: `bench-${n++}` });
});

// one worktree for the diff figures
const work = await createWorktree({ cwd: repo, agentDir, name: "diffs" });
let diffs = new TurnDiffs();
let sent: Promise<void> = Promise.resolve();
let write = 0;
bench.add(
  "turn/diff/updated after a write (change report -> diff sent)",
  async () => {
    writeFileSync(join(work.record.path, fileAt(write % FILES)), `changed ${write++}\n`);
    diffs.changed("t", "turn");
    await sent;
  },
  {
    beforeEach: async () => {
      diffs.forget("t");
      diffs = new TurnDiffs();
      const got = Promise.withResolvers<void>();
      sent = got.promise;
      await diffs.began("t", "turn", work.record.path, () => got.resolve());
    },
  },
);

const base = await treeOf(work.record.path, "HEAD");
bench.add(
  `thread/diff of a ${CHANGED}-file change`,
  async () => {
    const result = await diffWorkingTree(work.record.path, base);
    if (result.files.length < CHANGED) throw new Error(`only ${result.files.length} files in the diff`);
  },
  {
    beforeAll: () => {
      for (let i = 0; i < CHANGED; i++)
        writeFileSync(join(work.record.path, fileAt(i * 7)), `rewritten ${i}\n`);
    },
  },
);

await bench.run();
console.table(bench.table());
rmSync(root, { recursive: true, force: true });
