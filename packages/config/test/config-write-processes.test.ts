import { describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { tempAgentDir } from "@knightcode/testkit";
import { readConfig } from "../src/index.ts";

const WRITER = join(import.meta.dir, "support", "concurrent-writer.ts");
const WRITES_PER_PROCESS = 200;

describe("config/write across processes", () => {
  test("two processes each doing 200 interleaved expectedVersion writes lose no update", async () => {
    await using dir = await tempAgentDir();
    const spawnWriter = (name: string) =>
      Bun.spawn(["bun", WRITER, dir.agentDir, name, String(WRITES_PER_PROCESS)], {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
    const writers = [spawnWriter("a"), spawnWriter("b")];
    // Release both at once so their writes interleave.
    for (const w of writers) {
      w.stdin.write("go\n");
      await w.stdin.end();
    }
    const outcomes = await Promise.all(
      writers.map(async (w) => {
        const [code, out, err] = await Promise.all([
          w.exited,
          new Response(w.stdout).text(),
          new Response(w.stderr).text(),
        ]);
        return { code, out, err };
      }),
    );
    for (const o of outcomes) {
      expect(o.err).toBe("");
      expect(o.code).toBe(0);
      expect(JSON.parse(o.out)).toHaveProperty("conflicts");
    }
    const final = await readConfig({ agentDir: dir.agentDir });
    expect(final.settings.counter).toBe(2 * WRITES_PER_PROCESS);
    // No lock or temp file is left behind.
    expect(await readdir(dir.agentDir)).toEqual(["settings.json"]);
  }, 120_000);
});
