/**
 * Damaged transcripts made by hand: a clean two-turn v3 transcript, then each kind of
 * damage a user edit, a bad tool or a disk can leave in it. Tests read them through the
 * session store and through a real server and check that the valid history survives.
 */

/** One hand-made transcript and what a reader must make of it. */
export interface DamagedTranscript {
  /** Short name for test titles. */
  name: string;
  /** The thread ID (header ID, also in the file name). */
  threadId: string;
  bytes: Uint8Array;
  /** Turn IDs a reader must show, oldest first (the newest page for long files); empty when it is not a transcript. */
  turnIds: string[];
  /** Whether the reader must report damage; undefined for files that are not transcripts at all. */
  damaged: boolean | undefined;
  /** True when the file has no session header, so there is no thread to read. */
  notATranscript?: boolean;
}

const TIME = "2026-03-01T10:00:00.000Z";
const MS = Date.parse(TIME);
const enc = new TextEncoder();

type Line = Record<string, unknown>;

function header(threadId: string, cwd: string): Line {
  return { type: "session", version: 3, id: threadId, timestamp: TIME, cwd };
}

/** The four entries of one completed turn, chained after `parentId`. */
function turn(n: number, parentId: string | null, prefix = "a"): Line[] {
  const id = (k: number) => `${prefix}${n.toString(16).padStart(6, "0")}${k}`;
  const start = { type: "turn_start", id: id(0), parentId, timestamp: TIME, startedAt: MS };
  const user = {
    type: "message",
    id: id(1),
    parentId: id(0),
    timestamp: TIME,
    message: { role: "user", content: `question ${n}`, timestamp: MS },
  };
  const reply = {
    type: "message",
    id: id(2),
    parentId: id(1),
    timestamp: TIME,
    message: {
      role: "assistant",
      content: [{ type: "text", text: `answer ${n}` }],
      api: "openai-completions",
      provider: "mock",
      model: "mock-model",
      usage: {
        input: 1,
        output: 1,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 2,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "stop",
      timestamp: MS,
    },
  };
  const end = {
    type: "turn_end",
    id: id(3),
    parentId: id(2),
    timestamp: TIME,
    turnId: id(0),
    outcome: "completed",
    completedAt: MS,
  };
  return [start, user, reply, end];
}

function jsonl(lines: (Line | string | Uint8Array)[]): Uint8Array {
  const parts = lines.map((l) =>
    l instanceof Uint8Array ? l : enc.encode(typeof l === "string" ? l : JSON.stringify(l)),
  );
  const size = parts.reduce((n, p) => n + p.length + 1, 0);
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
    out[at++] = 0x0a;
  }
  return out;
}

/** A thread ID per fixture, so all of them can sit in one sessions directory. */
function threadIdFor(index: number): string {
  return `0195a000-0000-7000-8000-${index.toString(16).padStart(12, "0")}`;
}

/** The file name the session store gives a transcript of `threadId`. */
export function damagedTranscriptFileName(threadId: string): string {
  return `${TIME.replace(/[:.]/g, "-")}_${threadId}.jsonl`;
}

/** Every kind of damage, each in a fresh copy of the two-turn transcript; `cwd` goes into the headers. */
export function damagedTranscripts(cwd = "/project"): DamagedTranscript[] {
  const out: DamagedTranscript[] = [];
  const add = (
    name: string,
    make: (threadId: string) => (Line | string | Uint8Array)[] | Uint8Array,
    turnIds: string[],
    damaged: boolean | undefined,
  ) => {
    const threadId = threadIdFor(out.length + 1);
    const made = make(threadId);
    const fixture: DamagedTranscript = {
      name,
      threadId,
      bytes: made instanceof Uint8Array ? made : jsonl(made),
      turnIds,
      damaged,
    };
    if (damaged === undefined) fixture.notATranscript = true;
    out.push(fixture);
  };
  const t1 = () => turn(1, null);
  const t2 = () => turn(2, "a0000013");
  const both = ["a0000010", "a0000020"];

  add("intact", (id) => [header(id, cwd), ...t1(), ...t2()], both, false);
  add(
    "cycle: the first entry's parent is the last entry",
    (id) => {
      const lines = [...t1(), ...t2()];
      lines[0]!.parentId = lines.at(-1)!.id;
      return [header(id, cwd), ...lines];
    },
    both,
    true,
  );
  add(
    "cycle through two turns: turn 1 starts after turn 2",
    (id) => {
      const first = t1();
      first[0]!.parentId = "a0000020";
      return [header(id, cwd), ...first, ...t2()];
    },
    both,
    true,
  );
  add(
    "self-parent in the middle",
    (id) => {
      const second = t2();
      second[0]!.parentId = second[0]!.id;
      return [header(id, cwd), ...t1(), ...second];
    },
    both,
    true,
  );
  add(
    "invalid entry mid-chain: type 42 between the turns",
    (id) => {
      const second = t2();
      second[0]!.parentId = "deadbeef";
      return [
        header(id, cwd),
        ...t1(),
        { type: 42, id: "deadbeef", parentId: "a0000013", timestamp: TIME },
        ...second,
      ];
    },
    both,
    true,
  );
  add(
    "invalid entry without an ID between the turns",
    (id) => [header(id, cwd), ...t1(), { type: 42 }, ...t2()],
    both,
    true,
  );
  add(
    "wrong-typed content: a user message whose content is 42",
    (id) => {
      const first = t1();
      (first[1]!.message as Line).content = 42;
      const second = t2();
      (second[2]!.message as Line).content = "not a list";
      return [header(id, cwd), ...first, ...second];
    },
    both,
    true,
  );
  add(
    "wrong-typed fields: message null, parts of the wrong type, omit a number",
    (id) => {
      const first = t1();
      (first[2]!.message as Line).content = [
        42,
        null,
        { type: "text", text: 7 },
        { type: "text", text: "ok" },
      ];
      (first[2]!.message as Line).usage = "lots";
      return [
        header(id, cwd),
        ...first,
        { type: "message", id: "b0000001", parentId: "a0000013", timestamp: TIME, message: null },
        { type: "context_edit", id: "b0000002", parentId: "a0000013", timestamp: TIME, omit: 5 },
        ...t2().map((l, i) => (i === 0 ? { ...l, parentId: "b0000002" } : l)),
      ];
    },
    ["a0000010", "a0000020"],
    true,
  );
  add(
    "duplicated IDs: a line repeated, and a second entry reusing turn 1's ID with a later parent",
    (id) => {
      const first = t1();
      const second = t2();
      return [header(id, cwd), ...first, first[1]!, ...second, { ...first[0]!, parentId: "a0000023" }];
    },
    both,
    true,
  );
  add(
    "torn lines in the middle: turn 1's reply and end cut short",
    (id) => {
      const first = t1().map((l) => JSON.stringify(l));
      first[2] = first[2]!.slice(0, 40);
      first[3] = first[3]!.slice(0, 25);
      return [header(id, cwd), ...first, ...t2()];
    },
    both,
    true,
  );
  add(
    "non-UTF-8 bytes inside a message and on a line of their own",
    (id) => {
      const first = t1().map((l) => JSON.stringify(l));
      const [before, after] = first[1]!.split("question");
      const bad = new Uint8Array([0xff, 0xfe, 0xc3, 0x28]);
      const line = new Uint8Array([...enc.encode(`${before}question`), ...bad, ...enc.encode(after!)]);
      return [
        header(id, cwd),
        first[0]!,
        line,
        first[2]!,
        first[3]!,
        new Uint8Array([0x80, 0x81, 0xff]),
        ...t2(),
      ];
    },
    both,
    true,
  );
  add(
    "binary junk between the turns",
    (id) => {
      const junk = new Uint8Array(4096);
      for (let i = 0; i < junk.length; i++) junk[i] = (i * 131 + 7) % 256 === 0x0a ? 0 : (i * 131 + 7) % 256;
      return [header(id, cwd), ...t1(), junk, ...t2()];
    },
    both,
    true,
  );
  add(
    "binary junk only",
    () => {
      const junk = new Uint8Array(2048);
      for (let i = 0; i < junk.length; i++) junk[i] = (i * 197 + 3) % 256;
      return junk;
    },
    [],
    undefined,
  );
  add("empty", () => new Uint8Array(0), [], undefined);
  add("header only", (id) => [header(id, cwd)], [], false);
  add(
    "a 20,000-entry chain whose first entry points at the last",
    (id) => {
      const lines: Line[] = [];
      let parent: string | null = null;
      for (let n = 1; n <= 5000; n++) {
        const group = turn(n, parent, "c");
        lines.push(...group);
        parent = group[3]!.id as string;
      }
      lines[0]!.parentId = parent;
      return [header(id, cwd), ...lines];
    },
    // The newest page: the last 50 turns.
    Array.from({ length: 50 }, (_, i) => `c${(4951 + i).toString(16).padStart(6, "0")}0`),
    true,
  );
  return out;
}
