/**
 * The binary pass of `bun run test` (scripts/test-binary.ts): which files it runs, that
 * every file it leaves out exists and says why in one line, and that `KNIGHTCODE_BIN`
 * switches the harnesses' argv to the binary.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { collectOutput, KNIGHTCODE_MAIN } from "@knightcode/testkit";
import { BINARY_SUITES, binaryTestFiles, NOT_ON_BINARY } from "../scripts/test-binary.ts";

const root = join(import.meta.dir, "..");

describe("the binary test pass", () => {
  test("every file it leaves out is a test file of its suites, with a one-line reason", () => {
    for (const [file, reason] of Object.entries(NOT_ON_BINARY)) {
      expect({ file, exists: existsSync(join(root, file)) }).toEqual({ file, exists: true });
      expect(BINARY_SUITES.some((suite) => file.startsWith(`${suite}/`))).toBe(true);
      expect(file.endsWith(".test.ts")).toBe(true);
      expect({ file, reason: reason.trim() === "" || reason.includes("\n") }).toEqual({
        file,
        reason: false,
      });
    }
  });

  test("it runs the e2e suites' files and none of those it leaves out", () => {
    const files = binaryTestFiles(root);
    for (const file of [
      "packages/app-server/test/e2e/turns.test.ts",
      "packages/app-server/test/e2e/pi-examples.test.ts",
      "packages/app-server/test/e2e/mcp.test.ts",
      "packages/acp/test/e2e/prompt-turns.test.ts",
      "apps/cli/test/interactive.test.ts",
    ]) {
      expect(files).toContain(file);
    }
    for (const file of Object.keys(NOT_ON_BINARY)) expect(files).not.toContain(file);
    expect(files.every((file) => file.endsWith(".test.ts"))).toBe(true);
  });

  for (const [value, expected] of [
    ["", [process.execPath, KNIGHTCODE_MAIN, "--version"]],
    ["dist/knightcode", [join(root, "dist", "knightcode"), "--version"]],
    ["/opt/kc/bin/knightcode", ["/opt/kc/bin/knightcode", "--version"]],
  ] as const) {
    test(`KNIGHTCODE_BIN=${JSON.stringify(value)}: the harnesses run ${JSON.stringify(expected[0])}`, async () => {
      const child = Bun.spawn(
        [
          process.execPath,
          "-e",
          'import { knightcodeArgv } from "@knightcode/testkit"; process.stdout.write(JSON.stringify(knightcodeArgv(["--version"])));',
        ],
        { cwd: root, env: { ...process.env, KNIGHTCODE_BIN: value }, stdout: "pipe", stderr: "pipe" },
      );
      const { stdout, stderr, code } = await collectOutput(child);
      expect({ argv: JSON.parse(stdout), stderr, code }).toEqual({
        argv: [...expected],
        stderr: "",
        code: 0,
      });
    });
  }
});
