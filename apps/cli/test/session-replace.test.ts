/**
 * An extension command's `ctx.newSession()` and `ctx.fork()` in the real `knightcode` in a
 * pseudo-terminal: the terminal follows `thread/replaced` to the new thread (its history
 * on screen, the next prompt's request built from it), as it does for `/new` and `/fork`.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { textReply } from "@knightcode/testkit";
import { mockedAgent } from "./support/cli-run.ts";
import { PtySession } from "./support/pty-session.ts";

// pi-typed (pi's types are the app server's test dependency), shared with its e2e test
const REPLACER = join(
  import.meta.dir,
  "../../../packages/app-server/test/e2e/fixtures/extensions/session-replacer.ts",
);

const lastRequest = (env: Awaited<ReturnType<typeof mockedAgent>>) =>
  JSON.stringify(env.mock.requests.at(-1)!.body);

describe("ctx.newSession and ctx.fork in the terminal", () => {
  test("/clear moves the terminal to a new session whose first request starts from setup's note", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("first answer"), textReply("fresh answer"));
    await using tty = new PtySession(["-e", REPLACER], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("old question");
    await tty.waitFor("first answer");
    tty.type("/clear");
    // the new thread's (empty) history replaces the old one on screen; setup's note is
    // context before any turn, which history shows no item for
    await tty.waitFor((text) => !text.includes("first answer"));
    tty.type("new question");
    await tty.waitFor("fresh answer");
    expect(lastRequest(env)).toContain("CARRIED OVER NOTE");
    expect(lastRequest(env)).not.toContain("old question");
  }, 30_000);

  test("/branch-here forks at the first reply: the fork's history and its next request end there", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("reply one"), textReply("reply two"), textReply("reply three"));
    await using tty = new PtySession(["-e", REPLACER], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("question one");
    await tty.waitFor("reply one");
    tty.type("question two");
    await tty.waitFor("reply two");
    tty.type("/branch-here");
    await tty.waitFor((text) => text.includes("reply one") && !text.includes("reply two"));
    tty.type("question three");
    await tty.waitFor("reply three");
    expect(lastRequest(env)).toContain("reply one");
    expect(lastRequest(env)).not.toContain("question two");
  }, 30_000);
});
