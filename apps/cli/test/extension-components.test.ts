/**
 * pi's component UI in the real `knightcode` in a pseudo-terminal: pi's own
 * `custom-footer.ts` replaces the footer (and `/footer` again puts ours back), pi's
 * `overlay-test.ts` floats a `ctx.ui.custom()` overlay that takes typed keys and answers
 * on Enter, and a component widget, a header and an in-place `custom()` component from a
 * fixture draw and take keys.
 */
import { describe, expect, test } from "bun:test";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { textReply } from "@knightcode/testkit";
import { mockedAgent } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

/** pi's example extensions, as the app server's test dependency on pi ships them. */
const PI_EXAMPLES = realpathSync(
  join(
    import.meta.dir,
    "../../../packages/app-server/node_modules/@mariozechner/pi-coding-agent/examples/extensions",
  ),
);
const FIXTURE = join(import.meta.dir, "fixtures", "component-widget.ts");

describe("pi's component UI in the terminal", () => {
  test("custom-footer.ts: /footer draws the extension's footer in ours' place, and /footer again restores it", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession(["-e", join(PI_EXAMPLES, "custom-footer.ts")], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    // our footer names the model with its provider; pi's example names the model id only
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/footer");
    // the footer is the last lines (the header above names the model with its provider too)
    const footer = (text: string) => text.split("\n").slice(-3).join("\n");
    await tty.waitFor(
      (text) =>
        footer(text).includes("↑0 ↓0 $0.000") && !footer(text).includes("mock-completions/mock-model"),
    );
    expect(tty.text()).toContain("mock-model");
    tty.type("/footer");
    await tty.waitFor((text) => footer(text).includes("mock-completions/mock-model"));
  }, 30_000);

  test("overlay-test.ts: the overlay is drawn over the screen, takes typed keys and answers on Enter", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession(["-e", join(PI_EXAMPLES, "overlay-test.ts")], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/overlay-test");
    await tty.waitFor("Overlay Test");
    await tty.waitFor("▶ Search:");
    tty.write("abc");
    await tty.waitFor("Search: abc");
    tty.write(KEYS.enter);
    // done() resolved custom(): the handler's notify shows the answer, the overlay is gone
    await tty.waitFor((text) => text.includes('Search: "abc"') && !text.includes("Overlay Test"));
    // the editor has the keyboard again
    tty.write("typed after");
    await tty.waitFor("typed after");
  }, 30_000);

  test("a component widget and a header draw; custom() in the editor's place counts keys until Enter", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession(["-e", FIXTURE], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/gauge");
    await tty.waitFor("GAUGE ##### width=true");
    await tty.waitFor("HEADER FROM EXTENSION");
    tty.type("/counter");
    await tty.waitFor("COUNTER 0");
    tty.write("+++");
    await tty.waitFor("COUNTER 3");
    tty.write(KEYS.enter);
    await tty.waitFor((text) => text.includes("COUNTED 3") && !text.includes("COUNTER 3"));
    tty.write("back in the editor");
    await tty.waitFor("back in the editor");
  }, 30_000);
});

describe("pi's message renderers in the terminal", () => {
  test("message-renderer.ts: a status-update message of a turn is drawn by the extension's renderer", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("seen"));
    const sender = join(import.meta.dir, "fixtures", "status-at-end.ts");
    await using tty = new PtySession(["-e", join(PI_EXAMPLES, "message-renderer.ts"), "-e", sender], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("hello");
    await tty.waitFor("seen");
    // pi's renderer puts the level in front: our own rendering would show the bare text
    await tty.waitFor("[INFO] disk is fine");
  }, 30_000);

  test("message-renderer.ts: /status between turns is drawn at once, through the renderer, from its details", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("seen"));
    await using tty = new PtySession(["-e", join(PI_EXAMPLES, "message-renderer.ts")], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("hello");
    await tty.waitFor("seen");
    tty.type("/status warn disk low");
    // the level comes from the message's details: without them the renderer says INFO
    await tty.waitFor("[WARN] disk low");
  }, 30_000);
});
