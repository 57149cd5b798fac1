#!/usr/bin/env bun
/** The `knightcode` binary: parse, then dispatch one command (subcommands load lazily). */
import packageJson from "../package.json" with { type: "json" };
import { parseArgs, USAGE, usageLine } from "./args.ts";
import { quietIdleTerminal } from "./quiet-idle.ts";
import { SANDBOX_HELPER_SUBCOMMAND } from "./self-command.ts";

// The sandbox helper is this program run again with a hidden subcommand, compiled or from
// source alike (self-command.ts), so both forms start it the same way.
if (process.argv[2] === SANDBOX_HELPER_SUBCOMMAND) {
  const { runSandboxHelper } = await import("@knightcode/sandbox/helper");
  await runSandboxHelper();
  process.exit(0);
}

const command = parseArgs(process.argv.slice(2));
quietIdleTerminal(command);
// a server flag nobody can take is a usage error before anything starts (checked outside
// the process sandbox only: inside it, the same command line was checked already)
if (
  (command.kind === "appServer" || command.kind === "acp" || command.kind === "web") &&
  command.extensionFlags.length > 0 &&
  process.env.KNIGHTCODE_PROCESS_SANDBOX !== "1"
) {
  const { unclaimedServerFlag } = await import("./unclaimed-server-flags.ts");
  const problem = await unclaimedServerFlag(command, process.cwd());
  if (problem !== undefined) {
    process.stderr.write(usageLine(problem));
    process.exit(2);
  }
}
const processSandbox =
  (command.kind === "agent" && command.options.sandbox === "process") ||
  ((command.kind === "appServer" || command.kind === "acp" || command.kind === "web") &&
    command.sandbox === "process");
if (processSandbox && process.env.KNIGHTCODE_PROCESS_SANDBOX !== "1") {
  const { runInProcessSandbox } = await import("./process-sandbox.ts");
  process.exit(await runInProcessSandbox(process.argv.slice(2)));
}
switch (command.kind) {
  case "help":
    (command.to === "stderr" ? process.stderr : process.stdout).write(USAGE);
    process.exit(0);
    break;
  case "version":
    process.stdout.write(`knightcode ${packageJson.version}\n`);
    process.exit(0);
    break;
  case "error":
    process.stderr.write(usageLine(command.message));
    process.exit(2);
    break;
  case "agent": {
    const { runAgent } = await import("./agent-command.ts");
    process.exit(await runAgent(command.options));
    break;
  }
  case "appServer": {
    const { runAppServer } = await import("./app-server-command.ts");
    await runAppServer(command);
    break;
  }
  case "web": {
    const { runWeb } = await import("./web-command.ts");
    await runWeb(command);
    break;
  }
  case "acp": {
    const { runAcp } = await import("./acp-command.ts");
    process.exit(await runAcp(command));
    break;
  }
  case "package": {
    const { runPackageCommand } = await import("./package-command.ts");
    process.exit(await runPackageCommand(command.argv));
    break;
  }
  case "export": {
    const { runExport } = await import("./export-command.ts");
    process.exit(await runExport(command));
    break;
  }
  case "login": {
    const { runLogin } = await import("./login-command.ts");
    process.exit(await runLogin(command.provider));
    break;
  }
  case "demo": {
    const { runDemo } = await import("./demo.ts");
    process.exit(await runDemo());
  }
}
