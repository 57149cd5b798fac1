/**
 * Extension display calls in the real `knightcode` binary in a pseudo-terminal:
 * `setWidget` lines sit above (or below) the editor and go on `undefined`,
 * `setWorkingMessage` replaces the working line's text while a turn runs, and `setTitle`
 * sets the window title, which the terminal gets back when the agent exits.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { textReply } from "@knightcode/testkit";
import { mockedAgent } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

const EXTENSION = join(import.meta.dir, "fixtures", "display-extension.ts");

/** Index of the first visible row containing `text`. */
function rowOf(rows: string[], text: string): number {
  return rows.findIndex((row) => row.includes(text));
}

describe("extension display calls in the terminal", () => {
  test("widgets sit above and below the editor, without the escape sequences, and go when cleared", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession(["-e", EXTENSION], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/show");
    await tty.waitFor("HINT below");
    await tty.waitFor("PLAN step two");
    tty.write("draft text");
    await tty.waitFor("draft text");
    const rows = tty.visible();
    const editor = rowOf(rows, "draft text");
    expect(rowOf(rows, "PLAN step one")).toBeLessThan(editor);
    expect(rowOf(rows, "PLAN step two")).toBe(rowOf(rows, "PLAN step one") + 1);
    expect(rowOf(rows, "HINT below")).toBeGreaterThan(editor);
    expect(rowOf(rows, "HINT below")).toBeLessThan(rowOf(rows, "mock-completions/mock-model · fullAccess"));
    // the widget's screen clear and cursor move were dropped, its colour kept: the row holds just its text
    expect(rows[rowOf(rows, "HINT below")]!.trim()).toBe("HINT below");
    expect(tty.text()).not.toContain("Extension wrote to stdout");
    tty.write(KEYS.ctrlC);
    tty.type("/hide");
    await tty.waitFor((text) => !text.includes("PLAN step") && !text.includes("HINT below"));
    expect(env.mock.requests.length).toBe(0);
  }, 30_000);

  test("a widget set at session_start shows below the editor as the session opens", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession(["-e", EXTENSION], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("WELCOME from session_start");
    tty.write("draft text");
    await tty.waitFor("draft text");
    const rows = tty.visible();
    expect(rowOf(rows, "WELCOME from session_start")).toBeGreaterThan(rowOf(rows, "draft text"));
    expect(rowOf(rows, "WELCOME from session_start")).toBeLessThan(
      rowOf(rows, "mock-completions/mock-model · fullAccess"),
    );
  }, 30_000);

  test("the working message replaces the working line's text while a turn runs; cleared, the default is back", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      { steps: [{ type: "text", text: "still going" }], stallAfterEvents: 2 },
      { steps: [{ type: "text", text: "again going" }], stallAfterEvents: 2 },
    );
    await using tty = new PtySession(["-e", EXTENSION], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/show");
    await tty.waitFor("PLAN step one");
    tty.type("think about it");
    await tty.waitFor("still going");
    const working = await tty.waitFor("Pondering the plan");
    expect(working).not.toContain("Working…");
    tty.write(KEYS.escape);
    await tty.waitFor("⊘ Interrupted");
    expect(tty.text()).not.toContain("Pondering the plan");
    tty.type("/hide");
    await tty.waitFor((text) => !text.includes("PLAN step"));
    tty.type("once more");
    await tty.waitFor("again going");
    await tty.waitFor("Working…");
    expect(tty.visible().join("\n")).not.toContain("Pondering the plan");
    tty.write(KEYS.escape);
    await tty.waitFor((text) => text.split("⊘ Interrupted").length === 3);
  }, 30_000);

  test("setWorkingIndicator draws the working line with the extension's frames; setWorkingVisible(false) hides the line", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      { steps: [{ type: "text", text: "framed reply" }], stallAfterEvents: 2 },
      { steps: [{ type: "text", text: "quiet reply" }], stallAfterEvents: 2 },
    );
    await using tty = new PtySession(["-e", EXTENSION], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/indicator");
    tty.type("go on");
    await tty.waitFor("framed reply");
    const framed = await tty.waitFor((text) => /<[*+]> Working…/.test(text));
    expect(framed).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Working…/);
    tty.write(KEYS.escape);
    await tty.waitFor("⊘ Interrupted");
    tty.type("/indicator quiet");
    tty.type("keep going");
    await tty.waitFor("quiet reply");
    // the turn runs (Esc still interrupts it) with no working line on screen
    expect(tty.visible().join("\n")).not.toContain("Working…");
    tty.write(KEYS.escape);
    await tty.waitFor((text) => text.split("⊘ Interrupted").length === 3);
    expect(tty.text()).not.toContain("Extension wrote to stdout");
  }, 30_000);

  test("opening another thread takes the last one's widgets, statuses and title off the screen", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession(["-e", EXTENSION], {
      cwd: env.agent.cwd,
      env: env.env,
      title: "my shell",
    });
    await tty.waitFor("WELCOME from session_start");
    tty.type("/show");
    await tty.waitFor("PLAN step one");
    await tty.waitFor(() => tty.title === "knightcode - display test");
    tty.type("/new");
    // the new thread's own session_start widget comes back with it; /show's widgets do not
    await tty.waitFor((text) => !text.includes("PLAN step") && !text.includes("HINT below"));
    await tty.waitFor(() => tty.title === "my shell");
    await tty.waitFor("WELCOME from session_start");
    expect(tty.visible().join("\n")).not.toContain("PLAN step");
  }, 30_000);

  test("setTitle sets the window title (controls dropped) and the terminal's own title is back after exit", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("unused"));
    await using tty = new PtySession(["-e", EXTENSION], {
      cwd: env.agent.cwd,
      env: env.env,
      title: "my shell",
    });
    await tty.waitFor(() => tty.title === "my shell");
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/show");
    await tty.waitFor(() => tty.title === "knightcode - display test");
    expect(tty.text()).not.toContain("Extension wrote to stdout");
    tty.write(KEYS.ctrlD);
    expect(await tty.exited).toBe(0);
    await tty.waitFor(() => tty.title === "my shell");
  }, 30_000);
});
