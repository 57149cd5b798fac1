import { expect, test } from "bun:test";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalOperations } from "@knightcode/agent";
import { runExec } from "../src/exec.ts";

test("exec runs in the given cwd without a shell and without credentials in its environment", async () => {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "kc-exec-")));
  process.env.KC_EXEC_TEST_TOKEN = "secret";
  try {
    const result = await runExec(
      createLocalOperations(),
      "sh",
      ["-c", 'pwd; echo "token=$KC_EXEC_TEST_TOKEN"; echo err >&2; exit 3'],
      { cwd },
    );
    expect(result).toEqual({ stdout: `${cwd}\ntoken=\n`, stderr: "err\n", code: 3, killed: false });
  } finally {
    delete process.env.KC_EXEC_TEST_TOKEN;
  }
});

test("exec stops a program at its timeout and reports it killed", async () => {
  const result = await runExec(createLocalOperations(), "sleep", ["30"], { cwd: tmpdir(), timeout: 50 });
  expect(result.killed).toBe(true);
});
