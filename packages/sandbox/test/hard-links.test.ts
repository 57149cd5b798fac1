import { describe, expect, test } from "bun:test";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hardLinkedOutside, linksLeadingOutside } from "../src/hard-links.ts";

describe("hard links leading outside", () => {
  test("an inode with fewer names found than links has one outside", () => {
    const report = ["1 10 2 /p/out.txt", "1 11 2 /p/a.txt", "1 11 2 /p/b.txt", ""].join("\0");
    expect(linksLeadingOutside(report)).toEqual(["/p/out.txt"]);
  });

  test("a real scan finds the planted link and ignores links kept inside the roots", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-links-")));
    try {
      const project = join(root, "project");
      mkdirSync(project);
      writeFileSync(join(root, "outside.txt"), "x");
      linkSync(join(root, "outside.txt"), join(project, "planted.txt"));
      writeFileSync(join(project, "a.txt"), "y");
      linkSync(join(project, "a.txt"), join(project, "a-again.txt"));
      expect(await hardLinkedOutside([project])).toEqual([join(project, "planted.txt")]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
