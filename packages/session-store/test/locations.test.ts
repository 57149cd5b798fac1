import { describe, expect, test } from "bun:test";
import { archiveDirOf, projectDirName, sessionFileName } from "../src/index.ts";

describe("locations", () => {
  test("per-project directory names replace / \\ and : with - and wrap in --", () => {
    expect(projectDirName("/home/u/work/app")).toBe("--home-u-work-app--");
    expect(projectDirName("C:\\Users\\me\\app")).toBe("--C--Users-me-app--");
  });

  test("file names are the ISO time with : and . replaced, then the id", () => {
    expect(sessionFileName("2026-11-30T00:12:09.123Z", "0193-abc")).toBe(
      "2026-11-30T00-12-09-123Z_0193-abc.jsonl",
    );
  });

  test("archived transcripts live in archive/ beside the live ones", () => {
    expect(archiveDirOf("/s/--p--")).toBe("/s/--p--/archive");
  });
});
