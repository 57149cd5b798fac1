import { describe, expect, test } from "bun:test";
import {
  addFileOpsFromDetails,
  addFileOpsFromMessage,
  computeFileLists,
  createFileOps,
  formatFileLists,
} from "../src/file-ops.ts";
import { toolCall, user } from "./helpers.ts";

describe("file operations", () => {
  test("read/write/edit calls with a path are tracked; others are not", () => {
    const ops = createFileOps();
    addFileOpsFromMessage(toolCall("read", { path: "a" }), ops);
    addFileOpsFromMessage(toolCall("write", { path: "b" }), ops);
    addFileOpsFromMessage(toolCall("edit", { path: "c" }), ops);
    addFileOpsFromMessage(toolCall("grep", { path: "d", pattern: "x" }), ops);
    addFileOpsFromMessage(toolCall("read", {}), ops);
    addFileOpsFromMessage(user("read a path"), ops);
    expect(ops).toEqual({ read: new Set(["a"]), written: new Set(["b"]), edited: new Set(["c"]) });
  });

  test("files both read and modified are listed once, as modified; lists are sorted", () => {
    const ops = createFileOps();
    for (const path of ["z", "m", "a"]) addFileOpsFromMessage(toolCall("read", { path }), ops);
    addFileOpsFromMessage(toolCall("edit", { path: "m" }), ops);
    expect(computeFileLists(ops)).toEqual({ readFiles: ["a", "z"], modifiedFiles: ["m"] });
  });

  test("details from an earlier summary are merged; malformed details are ignored", () => {
    const ops = createFileOps();
    addFileOpsFromDetails({ readFiles: ["r", 3], modifiedFiles: ["w"] }, ops);
    addFileOpsFromDetails("nonsense", ops);
    addFileOpsFromDetails({ readFiles: "r2" }, ops);
    expect(computeFileLists(ops)).toEqual({ readFiles: ["r"], modifiedFiles: ["w"] });
  });

  test("lists are appended as tagged blocks, or not at all", () => {
    expect(formatFileLists({ readFiles: [], modifiedFiles: [] })).toBe("");
    expect(formatFileLists({ readFiles: ["a", "b"], modifiedFiles: ["c"] })).toBe(
      "\n\n<read-files>\na\nb\n</read-files>\n\n<modified-files>\nc\n</modified-files>",
    );
    expect(formatFileLists({ readFiles: [], modifiedFiles: ["c"] })).toBe(
      "\n\n<modified-files>\nc\n</modified-files>",
    );
  });
});
