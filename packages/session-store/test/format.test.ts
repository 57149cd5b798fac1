import { describe, expect, test } from "bun:test";
import {
  type CompactionEntry,
  createEntryId,
  createSessionId,
  MissingHeaderError,
  parseHeaderLine,
  parseSessionBytes,
  serializeLine,
} from "../src/index.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const header = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "session",
    version: 3,
    id: "t1",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/p",
    ...extra,
  });
const entry = (id: string, parentId: string | null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "custom",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    customType: "x",
    ...extra,
  });

describe("parseSessionBytes", () => {
  test("reads a v3 header and entries in file order with their line sizes", () => {
    const lines = [header(), entry("aaaaaaaa", null), entry("bbbbbbbb", "aaaaaaaa")];
    const parsed = parseSessionBytes(enc(`${lines.join("\n")}\n`));
    expect(parsed.header.id).toBe("t1");
    expect(parsed.entries.map((e) => e.id)).toEqual(["aaaaaaaa", "bbbbbbbb"]);
    expect(parsed.lineBytes).toEqual([lines[1]!.length + 1, lines[2]!.length + 1]);
    expect(parsed.tornTail).toBeUndefined();
    expect(parsed.sourceVersion).toBe(3);
  });

  test("a torn last line is ignored and reported with the offset where valid bytes end", () => {
    const good = `${header()}\n${entry("aaaaaaaa", null)}\n`;
    const torn = entry("bbbbbbbb", "aaaaaaaa").slice(0, 30);
    const parsed = parseSessionBytes(enc(good + torn));
    expect(parsed.entries.map((e) => e.id)).toEqual(["aaaaaaaa"]);
    expect(parsed.validBytes).toBe(enc(good).length);
    expect(new TextDecoder().decode(parsed.tornTail)).toBe(torn);
  });

  test("a complete last entry without its newline is kept and flagged", () => {
    const parsed = parseSessionBytes(enc(`${header()}\n${entry("aaaaaaaa", null)}`));
    expect(parsed.entries).toHaveLength(1);
    expect(parsed.tornTail).toBeUndefined();
    expect(parsed.missingFinalNewline).toBe(true);
  });

  test("malformed middle lines and entries without ids are skipped and counted", () => {
    const text = [
      header(),
      "{not json",
      entry("aaaaaaaa", null),
      JSON.stringify({ type: "custom" }),
      "",
    ].join("\n");
    const parsed = parseSessionBytes(enc(text));
    expect(parsed.entries.map((e) => e.id)).toEqual(["aaaaaaaa"]);
    expect(parsed.skippedLines).toBe(2);
  });

  test("a file without a session header is refused", () => {
    expect(() => parseSessionBytes(enc(`${entry("aaaaaaaa", null)}\n`))).toThrow(MissingHeaderError);
    expect(() => parseSessionBytes(enc(""))).toThrow(MissingHeaderError);
  });

  test("v1: ids are assigned from line positions, parents chain linearly, firstKeptEntryIndex becomes an id", () => {
    const v1 = [
      JSON.stringify({
        type: "session",
        id: "old",
        timestamp: "t",
        cwd: "/p",
        branchedFrom: "/x/parent.jsonl",
      }),
      JSON.stringify({
        type: "message",
        timestamp: "t",
        message: { role: "user", content: "a", timestamp: 1 },
      }),
      JSON.stringify({
        type: "message",
        timestamp: "t",
        message: { role: "user", content: "b", timestamp: 2 },
      }),
      JSON.stringify({
        type: "compaction",
        timestamp: "t",
        summary: "s",
        firstKeptEntryIndex: 2,
        tokensBefore: 5,
      }),
    ];
    const first = parseSessionBytes(enc(`${v1.join("\n")}\n`));
    const second = parseSessionBytes(enc(`${v1.join("\n")}\n`));
    expect(first.sourceVersion).toBe(1);
    expect(first.header.version).toBe(3);
    expect(first.header.parentSession).toBe("/x/parent.jsonl");
    expect(first.entries.map((e) => [e.id, e.parentId])).toEqual([
      ["00000001", null],
      ["00000002", "00000001"],
      ["00000003", "00000002"],
    ]);
    const compaction = first.entries[2] as CompactionEntry & { firstKeptEntryIndex?: number };
    expect(compaction.firstKeptEntryId).toBe("00000002");
    expect(compaction.firstKeptEntryIndex).toBeUndefined();
    expect(second.entries.map((e) => e.id)).toEqual(first.entries.map((e) => e.id));
  });

  test("v2: the hookMessage role is renamed to custom", () => {
    const v2 = [
      JSON.stringify({ type: "session", version: 2, id: "v2", timestamp: "t", cwd: "/p" }),
      JSON.stringify({
        type: "message",
        id: "aaaaaaaa",
        parentId: null,
        timestamp: "t",
        message: { role: "hookMessage", customType: "h", content: "x", display: true, timestamp: 1 },
      }),
    ];
    const parsed = parseSessionBytes(enc(`${v2.join("\n")}\n`));
    expect(parsed.sourceVersion).toBe(2);
    const first = parsed.entries[0]!;
    expect(first.type === "message" && first.message.role).toBe("custom");
  });
});

describe("ids and lines", () => {
  test("createEntryId returns 8 hex chars not already taken", () => {
    const taken = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const id = createEntryId(taken);
      expect(id).toMatch(/^[0-9a-f]{8}$/);
      expect(taken.has(id)).toBe(false);
      taken.add(id);
    }
  });

  test("createSessionId is a time-ordered UUIDv7", () => {
    const a = createSessionId();
    const b = createSessionId();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
  });

  test("serializeLine writes one compact JSON line", () => {
    const line = serializeLine({ type: "session", id: "x", timestamp: "t", cwd: "/" });
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
  });

  test("parseHeaderLine accepts only a session header and maps branchedFrom", () => {
    expect(parseHeaderLine(`${header()}\n{"type":"custom"}`)?.id).toBe("t1");
    expect(
      parseHeaderLine('{"type":"session","id":"a","timestamp":"t","cwd":"/","branchedFrom":"/p"}')
        ?.parentSession,
    ).toBe("/p");
    expect(parseHeaderLine('{"type":"message"}')).toBeUndefined();
    expect(parseHeaderLine("garbage")).toBeUndefined();
  });
});
