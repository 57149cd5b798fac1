import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeRealpath } from "@knightcode/approvals";

let root = "";
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "approvals-realpath-")));
  mkdirSync(join(root, "dir"));
  writeFileSync(join(root, "file"), "x");
  symlinkSync(join(root, "dir"), join(root, "link"));
  symlinkSync(join(root, "loop"), join(root, "loop"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("nodeRealpath", () => {
  test("resolves symlinks on the real filesystem", () => {
    expect(nodeRealpath(join(root, "link"))).toBe(join(root, "dir"));
  });

  test("returns null for a missing path or a path through a file", () => {
    expect(nodeRealpath(join(root, "missing"))).toBeNull();
    expect(nodeRealpath(join(root, "file", "x"))).toBeNull();
  });

  test("throws for a symlink loop so the caller fails closed", () => {
    expect(() => nodeRealpath(join(root, "loop"))).toThrow();
  });
});

describe("nodeRealpath and dangling symlinks", () => {
  test("a dangling symlink throws instead of reading as missing: a write would land at its target", () => {
    const dangling = join(root, "dangling");
    symlinkSync(join(root, "nowhere", "deeper"), dangling);
    expect(() => nodeRealpath(dangling)).toThrow("Dangling symbolic link");
  });
});
