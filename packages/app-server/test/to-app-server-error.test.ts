import { describe, expect, test } from "bun:test";
import { AppServerError } from "@knightcode/app-server-protocol";
import { ConfigError } from "@knightcode/config";
import { ThreadLockedElsewhereError, ThreadNotFoundError } from "@knightcode/session-store";
import { toAppServerError } from "../src/connection.ts";
import { FileSearchError } from "../src/file-search.ts";

describe("toAppServerError", () => {
  test("an AppServerError goes out as it is", () => {
    const error = new AppServerError("turnMismatch", "not the running turn", { turnId: "t1" });
    expect(toAppServerError(error)).toBe(error);
  });

  test("a config error keeps its wire code, message and data", () => {
    const wire = toAppServerError(
      new ConfigError("invalidParams", "the project is not trusted", { reason: "untrusted" }),
    ).toWire();
    expect(wire).toEqual({
      code: "invalidParams",
      message: "the project is not trusted",
      data: { reason: "untrusted" },
    });
    expect(
      toAppServerError(new ConfigError("configConflict", "changed", { version: "v2" })).toWire(),
    ).toEqual({
      code: "configConflict",
      message: "changed",
      data: { version: "v2" },
    });
  });

  test("a session store error keeps its wire code and data", () => {
    expect(toAppServerError(new ThreadNotFoundError("/s/a.jsonl")).code).toBe("threadNotFound");
    const locked = toAppServerError(new ThreadLockedElsewhereError("/s/a.jsonl", { pid: 7 })).toWire();
    expect(locked).toEqual({
      code: "threadLockedElsewhere",
      message: "session /s/a.jsonl is owned elsewhere",
      data: { path: "/s/a.jsonl", pid: 7 },
    });
  });

  test("a file search error keeps its wire code", () => {
    expect(toAppServerError(new FileSearchError("toolMissing", "fd is not installed")).toWire()).toEqual({
      code: "toolMissing",
      message: "fd is not installed",
    });
  });

  test("a foreign error that merely has a wire-looking code is internal", () => {
    const foreign = Object.assign(new Error("some library failed"), {
      code: "threadNotFound",
      data: { x: 1 },
    });
    expect(toAppServerError(foreign).toWire()).toEqual({ code: "internal", message: "some library failed" });
    const errno = Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" });
    expect(toAppServerError(errno).code).toBe("internal");
    expect(toAppServerError("a string").toWire()).toEqual({ code: "internal", message: "a string" });
  });
});
