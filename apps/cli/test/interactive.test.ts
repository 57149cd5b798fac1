import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { enqueueBetaEdit, mockedAgent, requestText } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

/** A bash command that holds the turn open until the test creates `release` in the project. */
const HOLD = "while [ ! -f release ]; do sleep 0.02; done; echo released";

describe("knightcode in a terminal", () => {
  test("a streamed reply appears, and Ctrl+D on the empty editor exits with code 0", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("Hello from the **mock** model, streamed in pieces.", 12));
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("say hello");
    await tty.waitFor("Hello from the mock model, streamed in pieces.");
    expect(tty.text()).toContain("› say hello");
    expect(requestText(env.mock.requests[0]!.body)).toContain("say hello");
    tty.write(KEYS.ctrlD);
    expect(await tty.exited).toBe(0);
  }, 30_000);

  test("the first message can come from the command line; a tool call shows its diff from fileChanges", async () => {
    await using env = await mockedAgent();
    enqueueBetaEdit(env, "Edited.");
    await using tty = new PtySession(["change beta"], { cwd: env.agent.cwd, env: env.env });
    const screen = await tty.waitFor("Edited.");
    expect(screen).toContain("✓ edit notes.txt");
    expect(screen).toContain("~ modified");
    expect(screen).toMatch(/^\s+-beta$/m);
    expect(screen).toMatch(/^\s+\+gamma$/m);
    expect(readFileSync(join(env.agent.cwd, "notes.txt"), "utf8")).toBe("alpha\ngamma\n");
  }, 30_000);

  test("an approval prompt offers exactly the server's decisions; accept runs the call", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "write", arguments: { path: "a.txt", content: "A\n" } }),
      textReply("Wrote it."),
    );
    await using tty = new PtySession(["--approval-mode", "ask"], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("write a.txt");
    const screen = await tty.waitFor("Allow write a.txt");
    expect(screen).toContain("Yes");
    expect(screen).toContain("No, and tell the model why");
    tty.write(KEYS.enter);
    await tty.waitFor("Wrote it.");
    expect(readFileSync(join(env.agent.cwd, "a.txt"), "utf8")).toBe("A\n");
  }, 30_000);

  test("declining with a typed message: the call does not run and the model reads the message", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "write", arguments: { path: "b.txt", content: "B\n" } }),
      textReply("Understood."),
    );
    await using tty = new PtySession(["--approval-mode", "ask"], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("write b.txt");
    const screen = await tty.waitFor("Allow write b.txt");
    const options = screen.split("\n").filter((l) => /^\s*(→\s*)?(Yes|No)/.test(l));
    // walk down to the decline choice, whatever its position among the offered ones
    const declineAt = options.findIndex((l) => l.includes("tell the model why"));
    for (let i = 0; i < declineAt; i++) tty.write(KEYS.down);
    tty.write(KEYS.enter);
    await tty.waitFor("Message to the model");
    tty.type("use c.txt instead");
    await tty.waitFor("Understood.");
    expect(existsSync(join(env.agent.cwd, "b.txt"))).toBe(false);
    expect(requestText(env.mock.requests[1]!.body)).toContain("use c.txt instead");
  }, 30_000);

  test("Enter while the agent works steers the running turn: the next model request carries it", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "bash", arguments: { command: HOLD } }),
      textReply("Steered reply."),
    );
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("start working");
    await tty.waitFor("Esc to interrupt");
    await tty.waitFor("● bash");
    tty.type("also check the tests");
    await tty.waitFor("steering: also check the tests");
    writeFileSync(join(env.agent.cwd, "release"), "");
    await tty.waitFor("Steered reply.");
    const second = requestText(env.mock.requests[1]!.body);
    expect(second).toContain("released");
    expect(second).toContain("also check the tests");
    expect(env.mock.requests.length).toBe(2);
  }, 30_000);

  test("Alt+Enter queues a follow-up that runs as its own turn after the current one", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "bash", arguments: { command: HOLD } }),
      textReply("First done."),
      textReply("Follow-up done."),
    );
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("start working");
    await tty.waitFor("● bash");
    tty.type("then summarize", KEYS.altEnter);
    await tty.waitFor("queued: then summarize");
    writeFileSync(join(env.agent.cwd, "release"), "");
    await tty.waitFor("Follow-up done.");
    expect(requestText(env.mock.requests[1]!.body)).not.toContain("then summarize");
    expect(requestText(env.mock.requests[2]!.body)).toContain("then summarize");
  }, 30_000);

  test("Esc interrupts the running turn and puts the queued text back into the editor", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(toolCallReply({ name: "bash", arguments: { command: HOLD } }));
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("start working");
    await tty.waitFor("● bash");
    tty.type("keep this text", KEYS.altEnter);
    await tty.waitFor("queued: keep this text");
    tty.write(KEYS.escape);
    await tty.waitFor("⊘ Interrupted");
    // the editor now holds the queued text: submitting it sends it as a new turn
    env.mock.enqueue(textReply("Got the restored text."));
    tty.write(KEYS.enter);
    await tty.waitFor("Got the restored text.");
    expect(requestText(env.mock.requests.at(-1)!.body)).toContain("keep this text");
  }, 30_000);

  test("/ completes commands and @ completes files through file/search", async () => {
    await using env = await mockedAgent();
    mkdirSync(join(env.agent.cwd, "src"));
    writeFileSync(join(env.agent.cwd, "src", "hello-world.ts"), "export {};\n");
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.write("/qu");
    await tty.waitFor("Exit knightcode");
    tty.write(KEYS.tab);
    await tty.waitFor(/^\s*\/quit\s*$/m);
    tty.write(KEYS.ctrlC);
    tty.write("look at @hellowor");
    await tty.waitFor("src/hello-world.ts");
    tty.write(KEYS.tab);
    env.mock.enqueue(textReply("Looked."));
    tty.write(KEYS.enter);
    await tty.waitFor("Looked.");
    expect(requestText(env.mock.requests[0]!.body)).toContain("look at @src/hello-world.ts");
  }, 30_000);

  test("a resize reflows the conversation to the new width", async () => {
    await using env = await mockedAgent();
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
    env.mock.enqueue(textReply(words));
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env, cols: 120 });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("talk");
    await tty.waitFor("word29");
    const lineWith = (text: string, word: string) => text.split("\n").find((l) => l.includes(word)) ?? "";
    expect(lineWith(tty.text(), "word0")).toContain("word15");
    tty.resize(40, 30);
    const visibleLine = () => lineWith(tty.visible().join("\n"), "word0 ");
    await tty.waitFor(() => visibleLine() !== "" && !visibleLine().includes("word10"));
    const after = tty.visible().filter((l) => l.includes("word"));
    expect(after.every((l) => l.length <= 40)).toBe(true);
    expect(after.length).toBeGreaterThan(4);
  }, 30_000);

  test("a failed turn shows its error kind and message", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue({ error: { kind: "auth", message: "the mock rejects this key" } });
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("hello");
    const screen = await tty.waitFor("✗ Turn failed (auth):");
    expect(screen).toContain("the mock rejects this key");
  }, 30_000);

  test("Alt+↑ takes the last queued follow-up back into the editor (turn/queue/remove)", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "bash", arguments: { command: HOLD } }),
      textReply("Only the first."),
    );
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("start working");
    await tty.waitFor("● bash");
    tty.type("changed my mind", KEYS.altEnter);
    await tty.waitFor("queued: changed my mind");
    tty.write(KEYS.altUp);
    await tty.waitFor((text) => !text.includes("queued: changed my mind"));
    writeFileSync(join(env.agent.cwd, "release"), "");
    await tty.waitFor("Only the first.");
    // the taken-back text is in the editor: Enter sends it as a new turn
    env.mock.enqueue(textReply("Sent after taking it back."));
    tty.write(KEYS.enter);
    await tty.waitFor("Sent after taking it back.");
    expect(requestText(env.mock.requests.at(-1)!.body)).toContain("changed my mind");
    expect(env.mock.requests.length).toBe(3);
  }, 30_000);

  test("Ctrl+O expands a tool call's output beyond its first lines", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "bash", arguments: { command: "seq 1 12" } }),
      textReply("Counted."),
    );
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("count");
    const collapsed = await tty.waitFor("Counted.");
    expect(collapsed).toContain("more lines (Ctrl+O to expand)");
    expect(collapsed).not.toMatch(/^\s+12\s*$/m);
    tty.write(KEYS.ctrlO);
    await tty.waitFor(/^\s+12\s*$/m);
  }, 30_000);
});
