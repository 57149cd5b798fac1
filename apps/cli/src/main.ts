#!/usr/bin/env bun
/** The `knightcode` binary. */
import { parseArgs, USAGE } from "./args.ts";

const command = parseArgs(process.argv.slice(2));
switch (command.kind) {
  case "help":
    process.stderr.write(USAGE);
    process.exit(0);
    break;
  case "error":
    process.stderr.write(`knightcode: ${command.message}\n${USAGE}`);
    process.exit(2);
    break;
  case "appServer": {
    const { runAppServer } = await import("./app-server-command.ts");
    await runAppServer(command);
    break;
  }
  case "demo": {
    const { runDemo } = await import("./demo.ts");
    process.exit(await runDemo());
  }
}
