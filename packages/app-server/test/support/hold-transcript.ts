/** Child process: owns a transcript through the session store until stdin closes, as another server would. */
import { SessionFile } from "@knightcode/session-store";

const path = process.argv[2];
if (path === undefined) throw new Error("usage: hold-transcript.ts <transcript>");
const session = await SessionFile.openOwned(path);
process.stdout.write("owned\n");
for await (const _ of process.stdin) {
  // ownership lasts until the parent closes our stdin
}
session.close();
