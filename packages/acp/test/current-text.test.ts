import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { currentText, DIFF_OLD_TEXT_LIMIT_BYTES } from "../src/current-text.ts";

describe("current text of a file about to be written", () => {
  test("a file's text, null for a missing file, nothing for a directory or a file over the limit", () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-current-text-"));
    try {
      writeFileSync(join(dir, "a.txt"), "one\n");
      writeFileSync(join(dir, "big.txt"), "x".repeat(DIFF_OLD_TEXT_LIMIT_BYTES + 1));
      expect(currentText(join(dir, "a.txt"))).toBe("one\n");
      expect(currentText(join(dir, "new.txt"))).toBeNull();
      expect(currentText(dir)).toBeUndefined();
      expect(currentText(join(dir, "big.txt"))).toBeUndefined();
      expect(currentText(undefined)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
