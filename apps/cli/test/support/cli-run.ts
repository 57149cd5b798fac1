/** Runs the real `knightcode` binary as a child process, with the testkit mock as its model. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  collectOutput,
  knightcodeArgv,
  type MockModelServer,
  mockDefaultAgentDir,
  startMockModelServer,
  type TempAgentDir,
  textReply,
  toolCallReply,
} from "@knightcode/testkit";

/** What a finished run printed and how it exited. */
export interface RunResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Options for one run of the binary. */
export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Text piped to stdin; without it stdin is /dev/null. */
  stdin?: string;
}

/** Runs the binary with `args` to completion. */
export async function runCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
  const child = Bun.spawn(knightcodeArgv(args), {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", NO_COLOR: "1", ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const { stdout, stderr, code } = await collectOutput(child);
  return { stdout, stderr, code };
}

/** A mock model plus an agent dir whose default model is the mock (Chat Completions wire). */
export interface MockedAgent extends AsyncDisposable {
  mock: MockModelServer;
  agent: TempAgentDir;
  /** Environment pointing the binary at the agent dir. */
  env: Record<string, string>;
}

/** Starts the mock and a temp agent dir that uses it. */
export async function mockedAgent(settings: Record<string, unknown> = {}): Promise<MockedAgent> {
  const mock = await startMockModelServer();
  const agent = await mockDefaultAgentDir(mock, settings);
  return {
    mock,
    agent,
    env: agent.env,
    [Symbol.asyncDispose]: async () => {
      await mock.close();
      await agent.remove();
    },
  };
}

/** All text the model was sent in one recorded Chat Completions request. */
export function requestText(body: unknown): string {
  return JSON.stringify((body as { messages?: unknown }).messages ?? body);
}

/**
 * The tests' standard edit: `notes.txt` ("alpha\nbeta\n") is written in the project and
 * the mock will ask to replace `beta` with `gamma`, then answer `reply`.
 */
export function enqueueBetaEdit(env: MockedAgent, reply: string): string {
  const path = join(env.agent.cwd, "notes.txt");
  writeFileSync(path, "alpha\nbeta\n");
  env.mock.enqueue(
    toolCallReply({
      name: "edit",
      arguments: { path: "notes.txt", edits: [{ oldText: "beta", newText: "gamma" }] },
    }),
    textReply(reply),
  );
  return path;
}
