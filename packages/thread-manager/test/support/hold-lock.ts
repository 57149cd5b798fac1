/** Child process: owns a transcript until stdin closes, like another server would. */
import { SessionFile } from "@knightcode/session-store";

const path = process.argv[2];
if (!path) throw new Error("usage: hold-lock.ts <transcript>");
const session = await SessionFile.openOwned(path);
process.stdout.write("locked\n");
for await (const _ of process.stdin) {
  // Hold the lock until the parent closes our stdin.
}
session.close();
