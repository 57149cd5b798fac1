import { describe, expect, test } from "bun:test";
import { fileChange, unifiedDiff } from "../../src/index.ts";

describe("file diffs", () => {
  test("a change gives a unified diff with file headers and hunks", async () => {
    const diff = await unifiedDiff("/p/f.txt", "a\nb\n", "a\nc\n");
    expect(diff).toBe("--- /p/f.txt\n+++ /p/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
  });

  test("a new file diffs from /dev/null; no difference gives no diff", async () => {
    expect(await unifiedDiff("/p/n.txt", undefined, "x\n")).toStartWith(
      "--- /dev/null\n+++ /p/n.txt\n@@ -0,0 +1,1 @@",
    );
    expect(await unifiedDiff("/p/f.txt", "same\n", "same\n")).toBeUndefined();
  });

  test("an empty diff is left out of the file change", () => {
    expect(fileChange("/p/f", "modify", undefined)).toEqual({ path: "/p/f", kind: "modify" });
    expect(fileChange("/p/f", "add", "")).toEqual({ path: "/p/f", kind: "add" });
    expect(fileChange("/p/f", "add", "d")).toEqual({ path: "/p/f", kind: "add", diff: "d" });
  });
});
