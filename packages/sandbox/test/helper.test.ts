/**
 * The helper's library module and its process entry point are apart: importing
 * `@knightcode/sandbox/helper` runs nothing, while helper-main.ts is the process that
 * serves frames until its stdin closes.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { encodeFrame, FrameReader } from "../src/frames.ts";

const SRC = join(import.meta.dir, "..", "src");

describe("sandbox helper", () => {
  test("importing the helper export writes nothing and leaves the importing process running", async () => {
    const script = `const m = await import(${JSON.stringify(join(SRC, "helper.ts"))}); console.log(typeof m.runSandboxHelper, "still here");`;
    const child = Bun.spawn([process.execPath, "-e", script], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    child.stdin.end();
    const [code, stdout, stderr] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: "function still here\n", stderr: "" });
  });

  test("helper-main.ts says ready, answers a frame, and exits 0 when its stdin closes", async () => {
    const child = Bun.spawn([process.execPath, join(SRC, "helper-main.ts")], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    child.stdin.write(encodeFrame({ id: 1, op: "stat", path: SRC }));
    void child.stdin.flush();
    const reader = new FrameReader();
    const headers: Record<string, unknown>[] = [];
    for await (const chunk of child.stdout) {
      for (const frame of reader.push(chunk)) headers.push(frame.header);
      // answered: closing stdin now tells the helper the sandbox is done
      if (headers.some((header) => header.id === 1)) child.stdin.end();
    }
    expect(await child.exited).toBe(0);
    expect(headers).toEqual([
      { type: "ready" },
      { id: 1, type: "result", value: expect.objectContaining({ isDirectory: true }) },
    ]);
  });
});
