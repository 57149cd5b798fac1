import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import {
  applyEdits,
  createEditTool,
  createLocalOperations,
  EditError,
  type FileChange,
} from "../../src/index.ts";
import { runTool } from "../helpers/run-tool.ts";
import { tempDir } from "../helpers/temp-dir.ts";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof EditError) return error.code;
    throw error;
  }
  return undefined;
}

describe("applyEdits", () => {
  test("a missing oldText fails with notFound", () => {
    expect(codeOf(() => applyEdits("alpha\nbeta\n", [{ oldText: "gamma", newText: "x" }], "f"))).toBe(
      "notFound",
    );
  });

  test("an oldText matching twice fails with ambiguous and says how many", () => {
    try {
      applyEdits("x = 1\ny = 2\nx = 1\n", [{ oldText: "x = 1", newText: "x = 3" }], "f.ts");
      throw new Error("expected a failure");
    } catch (error) {
      expect((error as EditError).code).toBe("ambiguous");
      expect((error as EditError).message).toContain("matches 2 places in f.ts");
    }
  });

  test("overlapping edits, empty oldText and no-op edits are refused", () => {
    const src = "one two three\n";
    expect(
      codeOf(() =>
        applyEdits(
          src,
          [
            { oldText: "one two", newText: "1 2" },
            { oldText: "two three", newText: "2 3" },
          ],
          "f",
        ),
      ),
    ).toBe("overlap");
    expect(codeOf(() => applyEdits(src, [{ oldText: "", newText: "x" }], "f"))).toBe("emptyOldText");
    expect(codeOf(() => applyEdits(src, [{ oldText: "two", newText: "two" }], "f"))).toBe("noChange");
  });

  test("several edits are matched against the original and all applied", () => {
    const out = applyEdits(
      "a\nb\nc\n",
      [
        { oldText: "c", newText: "C" },
        { oldText: "a", newText: "A" },
      ],
      "f",
    );
    expect(out).toBe("A\nb\nC\n");
  });

  test("trailing whitespace in the file or in oldText does not prevent a match", () => {
    expect(
      applyEdits(
        "if (x) {   \n  go();\t\n}\n",
        [{ oldText: "if (x) {\n  go();", newText: "if (y) {\n  stop();" }],
        "f",
      ),
    ).toBe("if (y) {\n  stop();\n}\n");
    expect(applyEdits("keep\nvalue\n", [{ oldText: "keep  \nvalue", newText: "kept" }], "f")).toBe("kept\n");
  });

  test("an exact match is preferred over a whitespace-tolerant one", () => {
    // "a " exists exactly once; the loose view would also match "a" lines.
    expect(applyEdits("a \na\n", [{ oldText: "a \n", newText: "b\n" }], "f")).toBe("b\na\n");
  });

  test("CRLF files keep CRLF, including in the inserted lines", () => {
    const out = applyEdits("one\r\ntwo\r\nthree\r\n", [{ oldText: "two\nthree", newText: "2\n3\n4" }], "f");
    expect(out).toBe("one\r\n2\r\n3\r\n4\r\n");
  });

  test("an oldText that ends with a line break takes the whole CRLF, leaving no stray LF", () => {
    expect(applyEdits("foo\r\nbar\r\n", [{ oldText: "foo\n", newText: "baz\n" }], "f")).toBe(
      "baz\r\nbar\r\n",
    );
    // The same through the whitespace-tolerant pass.
    expect(applyEdits("a\r\nfoo  \r\nbar\r\n", [{ oldText: "foo\n", newText: "" }], "f")).toBe(
      "a\r\nbar\r\n",
    );
  });

  test("a CRLF oldText matches an LF file and the file stays LF", () => {
    expect(applyEdits("one\ntwo\n", [{ oldText: "one\r\ntwo", newText: "1\r\n2" }], "f")).toBe("1\n2\n");
  });
});

describe("edit tool", () => {
  test("replaces text, reports a unified diff and a modify fileChange", async () => {
    await using dir = tempDir();
    const file = dir.join("a.ts");
    writeFileSync(file, "const a = 1;\nconst b = 2;\n");
    const tool = createEditTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, {
      path: "a.ts",
      edits: [{ oldText: "const b = 2;", newText: "const b = 3;" }],
    });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("const a = 1;\nconst b = 3;\n");
    const details = result.details as { diff: string; fileChanges: FileChange[]; firstChangedLine: number };
    expect(details.diff).toContain("-const b = 2;\n+const b = 3;");
    expect(details.firstChangedLine).toBe(2);
    expect(details.fileChanges).toEqual([{ path: file, kind: "modify", diff: details.diff }]);
    expect(tool.mutatedPaths?.({ path: "a.ts", edits: [] })).toEqual([file]);
  });

  test("missing and ambiguous matches fail the call and leave the file untouched", async () => {
    await using dir = tempDir();
    const file = dir.join("a.txt");
    writeFileSync(file, "dup\ndup\n");
    const tool = createEditTool({ cwd: dir.path, ops: createLocalOperations() });
    const ambiguous = await runTool(tool, { path: "a.txt", edits: [{ oldText: "dup", newText: "x" }] });
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.text).toContain("matches 2 places");
    const missing = await runTool(tool, {
      path: "a.txt",
      edits: [
        { oldText: "dup\ndup", newText: "ok" },
        { oldText: "nothing like this", newText: "x" },
      ],
    });
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain("Edit 2 of 2: oldText was not found in a.txt");
    expect(readFileSync(file, "utf8")).toBe("dup\ndup\n");
    expect(missing.details).toBeUndefined();
  });

  test("CRLF line endings and a byte-order mark survive an edit", async () => {
    await using dir = tempDir();
    const file = dir.join("win.txt");
    writeFileSync(file, "\uFEFFfirst\r\nsecond  \r\nthird\r\n");
    const tool = createEditTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, {
      path: "win.txt",
      edits: [{ oldText: "second\nthird", newText: "2nd\n3rd" }],
    });
    expect(result.isError).toBeFalsy();
    const bytes = readFileSync(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString("utf8")).toBe("first\r\n2nd\r\n3rd\r\n");
    // The diff is meant for reading: LF only, no BOM.
    expect((result.details as { diff: string }).diff).not.toContain("\r");
  });

  test("a file that is not UTF-8 text, or is binary, is refused and left byte for byte", async () => {
    await using dir = tempDir();
    // "café" in Latin-1: a lossy decode would turn é into U+FFFD when writing back.
    const latin1 = Uint8Array.from([...Buffer.from("caf"), 0xe9, 0x0a, ...Buffer.from("x = 1\n")]);
    const binary = Uint8Array.from([...Buffer.from("x = 1\n"), 0, 1, 2]);
    writeFileSync(dir.join("latin1.txt"), latin1);
    writeFileSync(dir.join("blob.bin"), binary);
    const tool = createEditTool({ cwd: dir.path, ops: createLocalOperations() });
    for (const [name, bytes] of [
      ["latin1.txt", latin1],
      ["blob.bin", binary],
    ] as const) {
      const result = await runTool(tool, { path: name, edits: [{ oldText: "x = 1", newText: "x = 2" }] });
      expect(result.isError).toBe(true);
      expect(result.text).toBe(
        `${name} is binary or not UTF-8 text; edit only changes UTF-8 text files. Use bash for other files.`,
      );
      expect([...readFileSync(dir.join(name))]).toEqual([...bytes]);
    }
  });

  test("in a file with mixed line endings only the matched text changes", async () => {
    await using dir = tempDir();
    const file = dir.join("mixed.txt");
    writeFileSync(file, "a\r\nb  \nc\r\nd\n");
    const tool = createEditTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { path: "mixed.txt", edits: [{ oldText: "b\nc", newText: "B\nC" }] });
    expect(result.isError).toBeFalsy();
    // The two CRLF lines against two LF lines: a tie keeps LF for the inserted line break.
    expect(readFileSync(file, "utf8")).toBe("a\r\nB\nC\r\nd\n");
  });

  test("a missing file is an error that points at write", async () => {
    await using dir = tempDir();
    const tool = createEditTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { path: "nope.txt", edits: [{ oldText: "a", newText: "b" }] });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("File not found: nope.txt");
  });
});
