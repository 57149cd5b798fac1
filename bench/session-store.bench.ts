/**
 * Session store benchmarks: append, open a 100 MB transcript, list 10,000 transcripts
 * cold and warm, page through a 10,000-turn session. Data goes to a temp dir that is
 * removed at the end. Targets: append < 20 µs (no fsync), open 100 MB < 1 s, warm
 * listing of 10,000 < 100 ms.
 */
import {
  appendFileSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bench } from "tinybench";
import {
  groupTurns,
  historyPage,
  SessionFile,
  THREAD_INDEX_FILE,
  ThreadLister,
} from "../packages/session-store/src/index.ts";

/** Section names to run (`append`, `open`, `list`, `history`); none given runs all. */
const only = process.argv.slice(2);
const runs = (section: string) => only.length === 0 || only.includes(section);
const root = mkdtempSync(join(tmpdir(), "kc-bench-session-store-"));
const usage = {
  input: 1200,
  output: 300,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 1500,
  cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0, total: 0.3 },
};
let idCounter = 0;
const nextId = () => (idCounter++).toString(16).padStart(8, "0");

function header(id: string): string {
  return `${JSON.stringify({ type: "session", version: 3, id, timestamp: new Date().toISOString(), cwd: "/bench" })}\n`;
}

function userLine(id: string, parentId: string | null, text: string): string {
  return `${JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-11-30T00:00:00.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  })}\n`;
}

function assistantLine(id: string, parentId: string, text: string): string {
  return `${JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-11-30T00:00:01.000Z",
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude",
      usage,
      stopReason: "stop",
      timestamp: 2,
    },
  })}\n`;
}

/** Writes a transcript of about `bytes` bytes: user/assistant pairs with ~4 KB replies. */
function writeBigTranscript(path: string, bytes: number): void {
  const fd = openSync(path, "w");
  writeSync(fd, header(Bun.randomUUIDv7()));
  let written = 0;
  let parent: string | null = null;
  const reply = "lorem ipsum dolor sit amet ".repeat(150);
  const chunk: string[] = [];
  while (written < bytes) {
    const u = nextId();
    const a = nextId();
    const lines = userLine(u, parent, "please continue the refactoring") + assistantLine(a, u, reply);
    parent = a;
    written += lines.length;
    chunk.push(lines);
    if (chunk.length === 256) {
      writeSync(fd, chunk.join(""));
      chunk.length = 0;
    }
  }
  writeSync(fd, chunk.join(""));
  closeSync(fd);
}

const results: Record<string, string> = {};

// 1. Append (no fsync), one entry per iteration, then a 100,000-entry run.
if (runs("append")) {
  const dir = join(root, "append");
  const file = await SessionFile.create({ dir, cwd: "/bench" });
  const entry = {
    type: "message" as const,
    message: { role: "user" as const, content: "hello world", timestamp: 1 },
  };
  const bench = new Bench({ name: "append", time: 1000, warmupIterations: 1000 });
  bench.add("append one entry (no fsync)", () => {
    file.append(entry);
  });
  await bench.run();
  console.table(bench.table());
  file.close();

  const big = await SessionFile.create({ dir, cwd: "/bench" });
  const start = performance.now();
  for (let i = 0; i < 100_000; i++) big.append(entry);
  big.sync();
  const ms = performance.now() - start;
  big.close();
  results["append 100,000 entries (+1 fsync)"] =
    `${ms.toFixed(0)} ms total, ${((ms * 1000) / 100_000).toFixed(2)} µs/entry`;
}

// 2. Open a 100 MB transcript (read-only and owned).
if (runs("open")) {
  const dir = join(root, "big");
  mkdirSync(dir);
  const path = join(dir, "big.jsonl");
  writeBigTranscript(path, 100 * 1024 * 1024);
  const bench = new Bench({ name: "open", iterations: 3, time: 0, warmupIterations: 1 });
  bench.add("open 100 MB transcript (read-only)", async () => {
    await SessionFile.openReadOnly(path);
  });
  bench.add("open 100 MB transcript (owned)", async () => {
    (await SessionFile.openOwned(path)).close();
  });
  bench.add("open 100 MB + build context", async () => {
    (await SessionFile.openReadOnly(path)).context();
  });
  await bench.run();
  console.table(bench.table());
  rmSync(dir, { recursive: true, force: true });
}

// 3. List 10,000 transcripts cold (index removed, fresh lister) and warm.
if (runs("list")) {
  const dir = join(root, "list");
  mkdirSync(dir);
  for (let i = 0; i < 10_000; i++) {
    const id = Bun.randomUUIDv7();
    const u = nextId();
    const text = `transcript ${i}: ${"some words of a first prompt ".repeat(4)}`;
    writeFileSync(
      join(dir, `2026-11-30T00-00-00-000Z_${id}.jsonl`),
      header(id) + userLine(u, null, text) + assistantLine(nextId(), u, "ok ".repeat(300)),
    );
  }
  const lister = new ThreadLister();
  const active = join(dir, "2026-11-30T00-00-00-000Z_active.jsonl");
  const bench = new Bench({ name: "list", iterations: 5, time: 0, warmupIterations: 0 });
  bench.add(
    "list 10,000 transcripts cold",
    async () => {
      await new ThreadLister().list({ dirs: [dir] });
    },
    {
      beforeEach() {
        try {
          unlinkSync(join(dir, THREAD_INDEX_FILE));
        } catch {}
      },
    },
  );
  bench.add(
    "list 10,000 transcripts warm",
    async () => {
      await lister.list({ dirs: [dir] });
    },
    {
      async beforeAll() {
        await lister.list({ dirs: [dir] });
      },
    },
  );
  // Warm, but one thread is active: its transcript grew since the last listing.
  bench.add(
    "list 10,000 transcripts warm, one grew",
    async () => {
      await lister.list({ dirs: [dir] });
    },
    {
      beforeEach() {
        appendFileSync(active, userLine(nextId(), null, "one more line"));
      },
    },
  );
  writeFileSync(active, header(Bun.randomUUIDv7()));
  await bench.run();
  console.table(bench.table());
  const before = lister.counters.filesOpened;
  await lister.list({ dirs: [dir] });
  results["warm listing files opened"] = String(lister.counters.filesOpened - before);
}

// 4. Page through a 10,000-turn session.
if (runs("history")) {
  const dir = join(root, "turns");
  const file = await SessionFile.create({ dir, cwd: "/bench" });
  for (let i = 0; i < 10_000; i++) {
    const start = file.append({ type: "turn_start", startedAt: i });
    file.append({ type: "message", message: { role: "user", content: `turn ${i}`, timestamp: i } });
    file.append({ type: "turn_end", turnId: start.id, outcome: "completed", completedAt: i });
  }
  file.close();
  const session = await SessionFile.openReadOnly(file.path);
  const bench = new Bench({ name: "history", iterations: 5, time: 0 });
  bench.add("newest page of a 10,000-turn session", () => {
    historyPage({ threadId: session.id, path: session.branch() });
  });
  bench.add("page through all 10,000 turns (200 pages)", () => {
    let cursor: string | undefined;
    let pages = 0;
    const path = session.branch();
    const grouped = groupTurns(path);
    do {
      const page = historyPage({ threadId: session.id, path, grouped, ...(cursor ? { cursor } : {}) });
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    if (pages !== 200) throw new Error(`expected 200 pages, got ${pages}`);
  });
  await bench.run();
  console.table(bench.table());
}

console.table(results);
rmSync(root, { recursive: true, force: true });
