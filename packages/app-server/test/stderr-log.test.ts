import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const MODULE = join(import.meta.dir, "..", "src", "stderr-log.ts");

/** Runs `logLine` calls in a child whose stderr is a real pipe; returns its stdout, stderr and exit code. */
async function runChild(script: string, closeStderr = false) {
  const child = Bun.spawn(
    [process.execPath, "-e", `import { logLine } from ${JSON.stringify(MODULE)};\n${script}`],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  if (closeStderr) await child.stderr.cancel();
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    closeStderr ? Promise.resolve("") : new Response(child.stderr).text(),
    child.exited,
  ]);
  return { stdout, stderr, code };
}

describe("logLine", () => {
  test("writes each line to stderr, adding the newline only when missing", async () => {
    const { stdout, stderr, code } = await runChild('logLine("one"); logLine("two\\n"); logLine("é ✓");');
    expect(code).toBe(0);
    expect(stdout).toBe("");
    expect(stderr).toBe("one\ntwo\né ✓\n");
  });

  test("a long line arrives whole", async () => {
    const { stderr } = await runChild('logLine("x".repeat(200_000));');
    expect(stderr).toBe(`${"x".repeat(200_000)}\n`);
  });

  test("a stderr nobody reads any more costs the line, not the process", async () => {
    const { stdout, code } = await runChild(
      'for (let i = 0; i < 2000; i++) logLine("x".repeat(1000)); console.log("still running");',
      true,
    );
    expect(stdout).toBe("still running\n");
    expect(code).toBe(0);
  });
});
