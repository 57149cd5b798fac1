import { describe, expect, test } from "bun:test";
import { parseArgs } from "../src/args.ts";

describe("knightcode arguments", () => {
  test("app-server takes repeatable -e/--extension and --session-dir", () => {
    expect(
      parseArgs([
        "app-server",
        "-e",
        "a.ts",
        "--extension",
        "b.ts",
        "--extension=c.ts",
        "--session-dir",
        "/s",
      ]),
    ).toEqual({
      kind: "appServer",
      extensions: ["a.ts", "b.ts", "c.ts"],
      sessionDir: "/s",
    });
    expect(parseArgs(["app-server"])).toEqual({ kind: "appServer", extensions: [] });
  });

  test("--help and -h anywhere mean help", () => {
    expect(parseArgs([])).toEqual({ kind: "help" });
    expect(parseArgs(["-h"])).toEqual({ kind: "help" });
    expect(parseArgs(["app-server", "--help"])).toEqual({ kind: "help" });
  });

  test("missing values and unknown options are errors", () => {
    expect(parseArgs(["app-server", "-e"]).kind).toBe("error");
    expect(parseArgs(["app-server", "--session-dir"]).kind).toBe("error");
    expect(parseArgs(["app-server", "--frobnicate"]).kind).toBe("error");
    expect(parseArgs(["launch"]).kind).toBe("error");
  });
});
