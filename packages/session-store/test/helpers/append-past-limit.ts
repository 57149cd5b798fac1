/**
 * Child process for the failed-write test, run under a file size limit with SIGXFSZ
 * ignored: owns argv[2], appends a small entry, then one too large to fit (the write
 * stops part way, then fails), then another small one. Prints one line per step.
 */
import { writeSync } from "node:fs";
import { SessionFile } from "../../src/index.ts";

const file = await SessionFile.openOwned(process.argv[2]!);
const step = (name: string, run: () => void) => {
  try {
    run();
    writeSync(1, `${name} ok\n`);
  } catch (error) {
    writeSync(1, `${name} failed ${(error as NodeJS.ErrnoException).code ?? String(error)}\n`);
  }
};
step("small", () => file.append({ type: "custom", customType: "small", data: 1 }));
step("big", () =>
  file.append({ type: "custom", customType: "big", data: "x".repeat(Number(process.argv[3])) }),
);
step("after", () => file.append({ type: "custom", customType: "small", data: 2 }));
file.close();
