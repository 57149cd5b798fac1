/**
 * Child process for the cross-process write test: waits for "go" on stdin, then
 * increments `counter` N times with expectedVersion, rereading and retrying on
 * configConflict, and prints how many conflicts it met.
 */
import { ConfigError, readConfig, writeConfig } from "../../src/index.ts";

const [agentDir, name, countText] = process.argv.slice(2);
if (agentDir === undefined || name === undefined || countText === undefined) {
  process.stderr.write("usage: concurrent-writer <agentDir> <name> <count>\n");
  process.exit(2);
}

const reader = Bun.stdin.stream().getReader();
let buffered = "";
while (!buffered.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) break;
  buffered += new TextDecoder().decode(value);
}
// An open stdin reader would keep this process alive after the work is done.
await reader.cancel();

let conflicts = 0;
for (let i = 0; i < Number(countText); i++) {
  for (;;) {
    const read = await readConfig({ agentDir });
    const counter = typeof read.settings.counter === "number" ? read.settings.counter : 0;
    try {
      await writeConfig({
        agentDir,
        scope: "global",
        key: "counter",
        value: counter + 1,
        expectedVersion: read.versions.global,
      });
      break;
    } catch (error) {
      if (error instanceof ConfigError && error.code === "configConflict") {
        conflicts++;
        continue;
      }
      throw error;
    }
  }
}
process.stdout.write(`${JSON.stringify({ name, conflicts })}\n`);
