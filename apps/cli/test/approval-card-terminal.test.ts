import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { enqueueBetaEdit, mockedAgent } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

describe("the approval card in a terminal", () => {
  test("a write's card shows the path and the content before the answer, folded past 16 lines; Ctrl+O shows the rest", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "write", arguments: { path: "demo-note.txt", content: `${lines(30)}\n` } }),
      textReply("Wrote it."),
    );
    await using tty = new PtySession(["--approval-mode", "ask"], {
      cwd: env.agent.cwd,
      env: env.env,
      rows: 50,
    });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("Create a file named demo-note.txt");
    const card = await tty.waitFor("Allow write demo-note.txt");
    expect(card).toContain(`+ new file ${join(env.agent.cwd, "demo-note.txt")} (30 lines)`);
    expect(card).toMatch(/^\s+line 1$/m);
    expect(card).toMatch(/^\s+line 15$/m);
    expect(card).not.toMatch(/^\s+line 30$/m);
    expect(card).toContain("… 15 more lines (Ctrl+O to show all)");
    expect(existsSync(join(env.agent.cwd, "demo-note.txt"))).toBe(false);
    tty.write(KEYS.ctrlO);
    const expanded = await tty.waitFor(/^\s+line 30$/m);
    expect(expanded).not.toContain("more lines (Ctrl+O to show all)");
    tty.write(KEYS.enter);
    await tty.waitFor("Wrote it.");
    expect(readFileSync(join(env.agent.cwd, "demo-note.txt"), "utf8")).toBe(`${lines(30)}\n`);
  }, 30_000);

  test("an edit's card shows the diff it would apply before the answer; declining leaves the file", async () => {
    await using env = await mockedAgent();
    enqueueBetaEdit(env, "Left it.");
    await using tty = new PtySession(["--approval-mode", "ask"], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("change beta");
    const card = await tty.waitFor("Allow edit notes.txt");
    expect(card).toContain(`~ modified ${join(env.agent.cwd, "notes.txt")}`);
    expect(card).toMatch(/^\s+ alpha$/m);
    expect(card).toMatch(/^\s+-beta$/m);
    expect(card).toMatch(/^\s+\+gamma$/m);
    expect(readFileSync(join(env.agent.cwd, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");
    tty.write(KEYS.escape);
    await tty.waitFor("Left it.");
    expect(readFileSync(join(env.agent.cwd, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");
  }, 30_000);

  test("a bash card shows the whole command, the folder it runs in and the prefix a grant would cover", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "bash", arguments: { command: "git status --short" } }),
      textReply("Skipped."),
    );
    await using tty = new PtySession(["--approval-mode", "ask"], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("status please");
    const card = await tty.waitFor("Allow bash git status --short");
    expect(card).toMatch(/^\s+\$ git status --short$/m);
    expect(card).toContain(`in ${env.agent.cwd}`);
    expect(card).toContain("don't ask again for commands starting with `git status`");
    tty.write(KEYS.escape);
    await tty.waitFor("Skipped.");
  }, 30_000);
});
