import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { collectOutput, knightcodeArgv, textReply } from "@knightcode/testkit";
import { enqueueBetaEdit, type MockedAgent, mockedAgent } from "./support/cli-run.ts";

/** Runs tmux on this test's own server socket, so no user session is touched. */
async function tmux(socket: string, ...args: string[]): Promise<string> {
  const child = Bun.spawn(["tmux", "-L", socket, ...args], { stdout: "pipe", stderr: "pipe" });
  const { stdout: out, stderr: err, code } = await collectOutput(child);
  if (code !== 0) throw new Error(`tmux ${args[0]} failed (${code}): ${err}`);
  return out;
}

/**
 * Waits for `text` in the pane. A control-mode client (`tmux -C`) reports every write to
 * the pane as a `%output` line; the pane is captured again after each one.
 */
async function waitForPane(socket: string, text: string, timeoutMs = 20_000): Promise<string> {
  const control = Bun.spawn(["tmux", "-L", socket, "-C", "attach-session", "-t", "kc"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const timer = setTimeout(() => control.kill(), timeoutMs);
  let pane = "";
  try {
    pane = await tmux(socket, "capture-pane", "-p", "-t", "kc");
    if (pane.includes(text)) return pane;
    const decoder = new TextDecoder();
    for await (const chunk of control.stdout) {
      if (!decoder.decode(chunk).includes("%output")) continue;
      pane = await tmux(socket, "capture-pane", "-p", "-t", "kc");
      if (pane.includes(text)) return pane;
    }
    throw new Error(`timed out waiting for ${JSON.stringify(text)} in the pane:\n${pane}`);
  } finally {
    clearTimeout(timer);
    control.kill();
    await control.exited;
  }
}

/** Starts knightcode with `args` in a detached 100x30 tmux session named `kc`, on the agent dir's project. */
async function startPane(socket: string, env: MockedAgent, args: string[] = []): Promise<void> {
  const command = [
    "env",
    ...Object.entries({ ...env.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" }).map(([k, v]) => `${k}=${v}`),
    ...knightcodeArgv(args),
  ];
  await tmux(
    socket,
    "new-session",
    "-d",
    "-s",
    "kc",
    "-x",
    "100",
    "-y",
    "30",
    "-c",
    env.agent.cwd,
    ...command,
  );
}

test("tmux smoke: knightcode starts in a real terminal with its first screen, says how to get Shift+Enter, takes a prompt and shows the answer", async () => {
  await using env = await mockedAgent();
  env.mock.enqueue(textReply("Smoke test answer from the mock.", 4));
  const socket = `knightcode-test-${process.pid}`;
  await startPane(socket, env);
  try {
    await waitForPane(socket, "mock-completions/mock-model");
    // the first screen: version, model, cwd and the keys
    const first = await waitForPane(socket, "Enter send");
    expect(first).toMatch(/knightcode \d+\.\d+\.\d+ · mock-completions\/mock-model · /);
    expect(first).toContain(
      "Alt+Enter queue · Esc interrupt · Ctrl+O expand · / commands · @ files · ! shell",
    );
    // this tmux server runs with extended keys off (its default): Shift+Enter cannot arrive
    await waitForPane(socket, "set -g extended-keys on");
    await tmux(socket, "send-keys", "-t", "kc", "-l", "hello from tmux");
    await tmux(socket, "send-keys", "-t", "kc", "Enter");
    const pane = await waitForPane(socket, "Smoke test answer from the mock.");
    expect(pane).toContain("› hello from tmux");
  } finally {
    await tmux(socket, "kill-server").catch(() => "");
  }
}, 40_000);

test("tmux smoke: an edit's approval shows its diff before the answer, and accepting applies it", async () => {
  await using env = await mockedAgent();
  const notes = enqueueBetaEdit(env, "Edited in tmux.");
  const socket = `knightcode-test-approval-${process.pid}`;
  await startPane(socket, env, ["--approval-mode", "ask"]);
  try {
    await waitForPane(socket, "mock-completions/mock-model");
    await tmux(socket, "send-keys", "-t", "kc", "-l", "change beta");
    await tmux(socket, "send-keys", "-t", "kc", "Enter");
    const card = await waitForPane(socket, "Allow edit notes.txt");
    expect(card).toMatch(/^\s+-beta$/m);
    expect(card).toMatch(/^\s+\+gamma$/m);
    expect(readFileSync(notes, "utf8")).toBe("alpha\nbeta\n");
    await tmux(socket, "send-keys", "-t", "kc", "Enter");
    await waitForPane(socket, "Edited in tmux.");
    expect(readFileSync(notes, "utf8")).toBe("alpha\ngamma\n");
  } finally {
    await tmux(socket, "kill-server").catch(() => "");
  }
}, 40_000);
