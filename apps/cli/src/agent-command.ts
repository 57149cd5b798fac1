/**
 * The terminal agent: connects in-process, opens the thread the flags ask for, then
 * runs print mode or the interactive UI. Piped stdin means print mode: the prompt (or
 * its continuation) is what was piped.
 */

import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isAppServerError, type Thread } from "@knightcode/app-server-protocol";
import type { LiveComponentSurface } from "@knightcode/extensions";
import { type AgentOptions, usageLine } from "./args.ts";
import { ENDING_SIGNALS } from "./ending-signals.ts";
import { settleFlagsOf } from "./extension-flags.ts";
import { discardStartedThread, OpenThreadError, openThread } from "./open-thread.ts";
import { runPrintTurn } from "./print-mode.ts";
import type { TerminalClient } from "./terminal-client.ts";

/** Exit code for a usage problem found after parsing (same as a bad flag). */
const USAGE_EXIT = 2;

async function readPipedStdin(): Promise<string> {
  if (process.stdin.isTTY === true) return "";
  return (await new Response(Bun.stdin.stream()).text()).trim();
}

/** Prompt from the argument and piped stdin: the argument first, the piped text after it. */
export function combinePrompt(argument: string | undefined, piped: string): string {
  if (argument === undefined || argument === "") return piped;
  return piped === "" ? argument : `${argument}\n\n${piped}`;
}

/** Runs the agent; resolves with the process exit code. */
export async function runAgent(options: AgentOptions): Promise<number> {
  const interactive = !options.print && process.stdin.isTTY === true;
  // attached to a server elsewhere: its working directory is the one threads open in
  let remote: TerminalClient | undefined;
  let cwd = process.cwd();
  if (options.remote !== undefined) {
    const { connectRemoteClient } = await import("./remote-client.ts");
    try {
      const attached = await connectRemoteClient({
        url: options.remote,
        ...(options.remoteTokenEnv === undefined ? {} : { tokenEnv: options.remoteTokenEnv }),
        clientName: interactive ? "knightcode-tui" : "knightcode-print",
        extensionDialogs: interactive,
      });
      remote = attached;
      cwd = attached.cwd;
    } catch (error) {
      process.stderr.write(`knightcode: ${describe(error)}\n`);
      return 1;
    }
  }
  let piped = "";
  if (!interactive) {
    piped = await readPipedStdin();
    // with extension flags the thread opens first: a flag nobody registers is the error to report
    if (options.extensionFlags.length === 0 && combinePrompt(options.prompt, piped) === "") return noPrompt();
  }
  // a transcript given by path is found in its own folder
  let sessionDir = options.sessionDir;
  if (sessionDir === undefined && options.session?.endsWith(".jsonl") && existsSync(options.session)) {
    sessionDir = dirname(resolve(cwd, options.session));
  }
  // loaded on demand: the interactive UI draws its first frame before the server code loads
  const connect = async (components?: LiveComponentSurface) =>
    remote ??
    (await import("./terminal-client.ts")).connectTerminalClient({
      ...(components === undefined ? {} : { components }),
      cwd,
      extensions: options.extensions,
      extensionFlags: options.extensionFlags,
      ...(sessionDir === undefined ? {} : { sessionDir }),
      noSession: options.noSession,
      clientName: interactive ? "knightcode-tui" : "knightcode-print",
      // nobody answers in print mode: its extensions keep the no-UI answers
      extensionDialogs: interactive,
      ...(options.sandbox === "tools" ? { sandbox: true } : {}),
    });
  if (interactive) {
    const { runInteractive } = await import("./interactive/run-interactive.ts");
    return runInteractive(connect, cwd, options);
  }
  const connection = await connect();
  // a signal ends the run as the end of the turn would: the server shuts down in order
  // (the turn interrupted and saved, the lock released), then the exit code says which
  for (const [signal, code] of Object.entries(ENDING_SIGNALS))
    process.once(signal, () => void connection.close().finally(() => process.exit(code)));
  /** The worktree thread this run made: it is settled as the interactive terminal's is. */
  let made: Thread | undefined;
  const settleMade = async () => {
    if (made === undefined) return;
    const thread = made;
    made = undefined;
    const { settleWorktreeOnExit } = await import("./worktree-exit.ts");
    process.stderr.write(
      `knightcode: ${await settleWorktreeOnExit(connection.client, thread).catch((error: unknown) => `${String(error)}\n`)}`,
    );
  };
  try {
    const opened = await openThread(connection.client, cwd, options);
    if (opened.created && opened.thread.worktree !== undefined) made = opened.thread;
    const settled = await settleFlagsOf(connection.client, opened, options);
    if ("error" in settled) {
      process.stderr.write(usageLine(settled.error));
      return USAGE_EXIT;
    }
    const prompt = combinePrompt(settled.prompt, piped);
    if (prompt === "") {
      // before the thread goes, which the worktree's removal needs
      await settleMade();
      await discardStartedThread(connection.client, opened);
      return noPrompt();
    }
    for (const warning of opened.warnings) process.stderr.write(`knightcode: warning: ${warning.message}\n`);
    const out = {
      stdout: (text: string) => process.stdout.write(text),
      stderr: (text: string) => process.stderr.write(text),
    };
    return await runPrintTurn(
      connection.client,
      opened.thread.id,
      prompt,
      options.mode,
      out,
      opened.thread.model?.provider,
    );
  } catch (error) {
    const message = error instanceof OpenThreadError ? error.message : describe(error);
    process.stderr.write(`knightcode: ${message}\n`);
    return 1;
  } finally {
    await settleMade();
    await connection.close();
  }
}

function noPrompt(): number {
  process.stderr.write("knightcode: print mode needs a prompt (an argument or piped stdin)\n");
  return USAGE_EXIT;
}

function describe(error: unknown): string {
  if (isAppServerError(error)) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
