import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import {
  contentVersion,
  lineColumnAt,
  parseJsonObject,
  readRawFile,
  readRegularFile,
  writeFileAtomic,
} from "../src/json-file.ts";
import { fifo, put, rejection } from "./support/files.ts";

describe("raw JSON files", () => {
  test("version is the SHA-256 of the raw bytes, 'none' when absent", async () => {
    await using dir = await tempAgentDir();
    const raw = '{ "theme": "dark" }\n';
    const path = await put(dir.root, "s.json", raw);
    const read = await readRawFile(path);
    expect(read.raw).toBe(raw);
    expect(read.version).toBe(createHash("sha256").update(raw).digest("hex"));
    expect(await readRawFile(join(dir.root, "missing.json"))).toMatchObject({ raw: null, version: "none" });
    expect(contentVersion(raw)).toBe(read.version);
  });

  test("a read that is not ENOENT throws internal", async () => {
    await using dir = await tempAgentDir();
    const error = await readRawFile(dir.root).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "internal" });
  });

  test("parse errors carry one-based line and column", () => {
    const result = parseJsonObject('{\n  "a": 1,\n  "b": oops\n}');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.failure).toMatchObject({ line: 3, column: 8 });
    const trailing = parseJsonObject('{"a": 1,}');
    expect(trailing.ok).toBe(false);
    if (!trailing.ok) expect(trailing.failure.line).toBe(1);
  });

  test("a BOM is accepted and a non-object top level is refused", () => {
    expect(parseJsonObject('\uFEFF{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseJsonObject("[1]").ok).toBe(false);
    expect(parseJsonObject("null").ok).toBe(false);
  });

  test("lineColumnAt counts from one", () => {
    expect(lineColumnAt("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnAt("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });

  test("atomic writes leave no temp files and keep or set the mode", async () => {
    await using dir = await tempAgentDir();
    const path = join(dir.root, "deep", "f.json");
    await writeFileAtomic(path, "one", 0o600);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await writeFileAtomic(path, "two");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, "utf8")).toBe("two");
    expect(await readdir(join(dir.root, "deep"))).toEqual(["f.json"]);
  });
});

describe("readRegularFile", () => {
  test("reads regular files, returns null when absent, and refuses FIFOs and devices without blocking", async () => {
    await using dir = await tempAgentDir();
    expect(await readRegularFile(await put(dir.root, "a.txt", "text"))).toBe("text");
    expect(await readRegularFile(join(dir.root, "missing"))).toBeNull();
    expect(await rejection(readRegularFile(await fifo(dir.root, "pipe")))).toMatchObject({
      code: "ENOTREGULAR",
    });
    expect(await rejection(readRegularFile("/dev/zero"))).toMatchObject({ code: "ENOTREGULAR" });
    expect(await rejection(readRegularFile(dir.root))).toMatchObject({ code: "EISDIR" });
  });

  test("a settings file that is a FIFO is an internal error, not a hang", async () => {
    await using dir = await tempAgentDir();
    const path = await fifo(dir.agentDir, "settings.json");
    expect(await rejection(readRawFile(path))).toMatchObject({ code: "internal" });
  });
});
