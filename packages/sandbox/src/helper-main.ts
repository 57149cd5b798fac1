/**
 * The sandbox helper as a bare script, for this package's tests and the bench
 * (test/source-helper.ts); KnightCode itself runs `knightcode __sandbox-helper`.
 */
import { runSandboxHelper } from "./helper.ts";

await runSandboxHelper();
// The server closed our stdin: it is done with this sandbox.
process.exit(0);
