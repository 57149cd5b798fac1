import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type CustomEntry, SessionFile } from "../src/index.ts";
import { lineReader } from "./helpers/lines.ts";
import { tempDir } from "./helpers/temp-dir.ts";

const LOOP = join(import.meta.dir, "helpers/append-loop.ts");
const PADS = [16, 50_000, 900_000];
const KILLS = 18;
const MAX_APPENDS_PER_CHILD = 40;

function numbers(file: SessionFile): number[] {
  return file.entries
    .filter((e): e is CustomEntry => e.type === "custom" && e.customType === "crash")
    .map((e) => (e.data as { n: number }).n);
}

describe("crash safety", () => {
  test("SIGKILL during appends: every returned append survives, at most the torn line is missing and kept aside", async () => {
    await using dir = tempDir();
    let path = "";
    let next = 0;
    for (let round = 0; round < KILLS; round++) {
      if (round % 6 === 0) {
        // A fresh transcript now and then keeps reopen cost and disk use small.
        const created = await SessionFile.create({ dir: dir.path, cwd: "/crash" });
        created.close();
        path = created.path;
        next = 0;
      }
      const pad = PADS[round % PADS.length]!;
      const child = Bun.spawn(["bun", LOOP, path, String(next), String(pad), String(MAX_APPENDS_PER_CHILD)], {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "inherit",
      });
      const lines = lineReader(child.stdout);
      expect(await lines.next()).toStartWith("open ");
      const killAfter = 1 + ((round * 7) % 25);
      const acked: number[] = [];
      while (acked.length < killAfter) {
        const line = await lines.next();
        if (line === "done") break;
        acked.push(Number(line));
      }
      child.kill("SIGKILL");
      await child.exited;
      // Acks printed before the kill that we had not read yet count as returned appends too.
      for (;;) {
        const line = await lines.next().catch(() => undefined);
        if (line === undefined) break;
        if (line !== "done") acked.push(Number(line));
      }

      // Whatever follows the last newline is the torn line (if the kill tore one): it must be kept aside whole.
      const raw = readFileSync(path);
      const tornBytes = raw.subarray(raw.lastIndexOf(0x0a) + 1);
      const owner = await SessionFile.openOwned(path);
      if (tornBytes.length > 0 && owner.tornTailSavedTo === undefined) {
        // Cut exactly before its newline: a complete entry, kept as the last one.
        expect(owner.entries.at(-1)).toEqual(JSON.parse(tornBytes.toString("utf8")));
      } else if (tornBytes.length > 0) {
        expect(readFileSync(owner.tornTailSavedTo!).equals(tornBytes)).toBe(true);
      }
      const present = numbers(owner);
      const lastAcked = acked.at(-1) ?? next - 1;
      for (const n of acked) expect(present).toContain(n);
      // Present entries are exactly 0..k with k either the last acked or the one append in flight.
      expect(present).toEqual(Array.from({ length: present.length }, (_, i) => i));
      expect(present.length - 1 - lastAcked).toBeLessThanOrEqual(1);
      // Whether a kill tears a line depends on timing; session-file.test.ts pins a torn tail deterministically.
      if (owner.tornTailSavedTo) {
        const torn = readFileSync(owner.tornTailSavedTo, "utf8");
        expect(torn.length).toBeGreaterThan(0);
        expect(torn).toStartWith('{"type":"custom"');
        expect(torn.endsWith("\n")).toBe(false);
      }
      next = present.length;
      owner.close();
    }
  }, 120_000);
});
