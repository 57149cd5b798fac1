/**
 * Child process for the crash test: owns argv[2] and appends custom entries numbered
 * from argv[3], printing each number after its append returned. It stops after
 * argv[5] appends (bounding disk use) and then waits to be killed.
 */
import { writeSync } from "node:fs";
import { SessionFile } from "../../src/index.ts";

const path = process.argv[2]!;
let n = Number(process.argv[3]);
const padBytes = Number(process.argv[4]);
const stopAt = n + Number(process.argv[5]);
const file = await SessionFile.openOwned(path);
writeSync(1, `open ${file.tornTailSavedTo ?? "-"}\n`);
while (n < stopAt) {
  file.append({ type: "custom", customType: "crash", data: { n, pad: "x".repeat(padBytes) } });
  writeSync(1, `${n}\n`);
  n++;
}
writeSync(1, "done\n");
await Bun.stdin.stream().getReader().read();
