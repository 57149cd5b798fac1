/**
 * Child process for ownership tests: waits for a line on stdin, tries to own the
 * transcript given as argv[2], prints `won` or `locked:<code>`, then holds the lock
 * until stdin closes.
 */
import { writeSync } from "node:fs";
import { SessionFile, SessionStoreError } from "../../src/index.ts";

const path = process.argv[2]!;
const reader = Bun.stdin.stream().getReader();
await reader.read();
let file: SessionFile | undefined;
try {
  file = await SessionFile.openOwned(path);
  writeSync(1, "won\n");
} catch (error) {
  writeSync(1, `locked:${error instanceof SessionStoreError ? error.code : String(error)}\n`);
}
for (;;) {
  const { done } = await reader.read();
  if (done) break;
}
file?.close();
