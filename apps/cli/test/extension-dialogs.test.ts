/**
 * Extension dialogs in the real `knightcode` binary in a pseudo-terminal: the CLI declares
 * `capabilities.extensionDialogs`, so `ctx.hasUI` is true and each dialog is an inline
 * prompt; Esc answers the no-answer value. Print mode declares nothing: no one is asked.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { mockedAgent, requestText, runCli } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

const EXTENSION = join(import.meta.dir, "fixtures", "dialogs-extension.ts");

describe("extension dialogs in the terminal", () => {
  test("confirm, select and input are inline prompts; notify and setStatus show", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession(["-e", EXTENSION], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/ask");
    const confirm = await tty.waitFor("Deploy now?");
    expect(confirm).toContain("Ship it to production");
    expect(confirm).toMatch(/Yes[\s\S]*No/);
    tty.write(KEYS.enter);
    await tty.waitFor("Pick a colour");
    tty.write(KEYS.down);
    tty.write(KEYS.enter);
    await tty.waitFor("Your name");
    await tty.waitFor("e.g. Ada");
    tty.type("Grace");
    await tty.waitFor("answers hasUI=true confirmed=true choice=green text=Grace");
    // the status line sits under the footer once its render lands
    await tty.waitFor("status: asked");
    expect(env.mock.requests.length).toBe(0);
  }, 30_000);

  test("editor is a multi-line prompt holding the prefill: Ctrl+J adds a line, Enter sends the text, Esc sends none", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession(["-e", EXTENSION], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/compose");
    const prompt = await tty.waitFor("Write the note");
    expect(prompt).toMatch(/first line\s*\n[^\n]*second line/);
    tty.write(" more");
    tty.write("\n");
    tty.type("third");
    await tty.waitFor('edited: "first line\\nsecond line more\\nthird"');
    // the message editor got the keyboard back
    tty.type("/compose");
    await tty.waitFor((text) => text.split("Write the note").length === 2);
    tty.write(KEYS.escape);
    await tty.waitFor("edited: null");
    expect(tty.visible().join("\n")).not.toContain("Write the note");
    expect(env.mock.requests.length).toBe(0);
  }, 30_000);

  test("Esc on a tool's confirm answers false, and the model reads that", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "ask_user", arguments: { question: "Proceed with the plan?" } }),
      textReply("Fine, not proceeding."),
    );
    await using tty = new PtySession(["-e", EXTENSION], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("do the plan");
    await tty.waitFor("Proceed with the plan?");
    tty.write(KEYS.escape);
    await tty.waitFor("Fine, not proceeding.");
    expect(requestText(env.mock.requests[1]!.body)).toContain("confirmed: false, hasUI: true");
  }, 30_000);

  test("Esc in a dialog during a turn cancels only the dialog; the turn goes on, and a second Esc interrupts it", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "ask_user", arguments: { question: "Proceed with the plan?" } }),
      // the model is still answering when the second Esc comes
      { steps: [{ type: "text", text: "thinking it over" }], stallAfterEvents: 2 },
    );
    await using tty = new PtySession(["-e", EXTENSION], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("do the plan");
    await tty.waitFor("Question from a tool");
    tty.write(KEYS.escape);
    // the cancelled answer went back to the model: the same turn made its next request
    const next = await env.mock.waitForRequest(1);
    expect(requestText(next.body)).toContain("confirmed: false, hasUI: true");
    await tty.waitFor("thinking it over");
    const running = tty.visible().join("\n");
    expect(running).not.toContain("Question from a tool");
    expect(running).toContain("Esc to interrupt");
    expect(tty.text()).not.toContain("Interrupted");
    tty.write(KEYS.escape);
    await tty.waitFor("⊘ Interrupted");
    expect(env.mock.requests.length).toBe(2);
  }, 30_000);

  test("print mode has no UI: the dialogs answer at once with their no-answer values", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "ask_user", arguments: { question: "Proceed?" } }),
      textReply("done"),
    );
    const run = await runCli(["-e", EXTENSION, "-p", "go"], { cwd: env.agent.cwd, env: env.env });
    expect(run.code).toBe(0);
    expect(requestText(env.mock.requests[1]!.body)).toContain("confirmed: false, hasUI: false");
  }, 30_000);
});
