#!/usr/bin/env bun
/** The `knightcode` binary. */
const USAGE = `Usage:
  knightcode app-server [-e <extension>]... [--session-dir <dir>]
  knightcode demo
  knightcode --help
`;

const [command] = process.argv.slice(2);
if (command === undefined || command === "--help" || command === "-h") {
  process.stderr.write(USAGE);
  process.exit(0);
}
process.stderr.write(`knightcode: '${command}' is not available yet\n${USAGE}`);
process.exit(command === "demo" ? 0 : 2);
