/**
 * Reading damaged transcripts costs time linear in their size, whatever they hold: each
 * hand-made fixture of the testkit (cycles, self-parents, invalid and duplicated entries,
 * torn lines, non-UTF-8 bytes, binary junk, a 20,000-entry chain looping back to its
 * start) is opened read-only, walked root to leaf and paged as `thread/read` does. Plus
 * a 200,000-entry looping chain, to show the cost grows with the file, not with the loop.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bench } from "tinybench";
import { historyPage, SessionFile } from "../packages/session-store/src/index.ts";
import { damagedTranscriptFileName, damagedTranscripts } from "../packages/testkit/src/index.ts";

const dir = mkdtempSync(join(tmpdir(), "kc-bench-damaged-"));
const fixtures = damagedTranscripts().filter((f) => !f.notATranscript);

// a 200,000-entry chain whose first entry names the last: ten times the fixture's length
const header = JSON.stringify({
  type: "session",
  version: 3,
  id: "big-loop",
  timestamp: "2026-03-01T10:00:00.000Z",
  cwd: "/p",
});
const lines = [header];
for (let i = 0; i < 200_000; i++) {
  const id = i.toString(16).padStart(8, "0");
  const parentId = i === 0 ? (199_999).toString(16).padStart(8, "0") : (i - 1).toString(16).padStart(8, "0");
  lines.push(
    JSON.stringify({ type: "custom", id, parentId, timestamp: "2026-03-01T10:00:00.000Z", customType: "x" }),
  );
}
const bigPath = join(dir, "big-loop.jsonl");
writeFileSync(bigPath, `${lines.join("\n")}\n`);

const bench = new Bench({ name: "damaged transcripts", time: 300, warmupIterations: 2 });
for (const fixture of fixtures) {
  const path = join(dir, damagedTranscriptFileName(fixture.threadId));
  writeFileSync(path, fixture.bytes);
  bench.add(
    `read: ${fixture.name.split(":")[0]} (${(fixture.bytes.length / 1024).toFixed(0)} KiB)`,
    async () => {
      const session = await SessionFile.openReadOnly(path);
      historyPage({ threadId: session.id, path: session.branch() });
    },
  );
}
bench.add(
  `read: 200,000-entry loop (${(lines.join("\n").length / 1024 / 1024).toFixed(0)} MiB)`,
  async () => {
    const session = await SessionFile.openReadOnly(bigPath);
    historyPage({ threadId: session.id, path: session.branch() });
  },
);
await bench.run();
console.table(bench.table());
rmSync(dir, { recursive: true, force: true });
