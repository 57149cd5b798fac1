/**
 * Runs every `bench/*.bench.ts` file in turn (one process each, so one suite's heap
 * does not skew the next). Pass names to run a subset: `bun run bench session-store`.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

const filter = process.argv.slice(2);
const files = readdirSync(import.meta.dir)
  .filter((name) => name.endsWith(".bench.ts"))
  .filter((name) => filter.length === 0 || filter.some((f) => name.includes(f)))
  .sort();

let failed = 0;
for (const file of files) {
  process.stderr.write(`\n== ${file}\n`);
  const child = Bun.spawn(["bun", join(import.meta.dir, file)], { stdout: "inherit", stderr: "inherit" });
  if ((await child.exited) !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
