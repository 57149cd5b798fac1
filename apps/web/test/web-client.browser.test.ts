/**
 * The web client in a real browser against a real `knightcode web` child: pair with the
 * printed link, start a thread on the mock model, stream a reply, answer an approval,
 * see the edit's diff, interrupt a turn, reload mid-turn and see the turn go on. Each
 * step's screenshot is written to a temp dir (kept, its paths printed) to look at.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectWebSocket, HISTORY_PAGE_TURNS } from "@knightcode/app-server-protocol";
import {
  MOCK_MODEL_ID,
  MOCK_PROVIDERS,
  type MockScript,
  splitIntoDeltas,
  textReply,
  toolCallReply,
} from "@knightcode/testkit";
import type { Page, WebSocketRoute } from "playwright-core";
import { type Browser, launchBrowser } from "./support/browser.ts";
import { startWebChild, type WebChild } from "./support/web-child.ts";

const WAIT = { timeout: 20_000 };
/** bun's guard per test (a browser step can take seconds on a loaded machine), not a timing assertion. */
const TEST_TIMEOUT = 90_000;

let server: WebChild;
let browser: Browser;
let page: Page;
let shots: string;
let shotCount = 0;
const foreignRequests: string[] = [];

async function screenshot(name: string): Promise<void> {
  const path = join(shots, `${String(++shotCount).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path });
  console.log(`screenshot: ${path}`);
}

async function send(text: string): Promise<void> {
  await page.locator("#composer textarea").fill(text);
  await page.locator('#composer button[name="send"]').click();
}

/** A text reply in 10 deltas whose stream holds after the first 4 until `release()`. */
function pausedReply(text: string) {
  let release!: () => void;
  const resumeWhen = new Promise<void>((resolve) => {
    release = resolve;
  });
  const pieces = splitIntoDeltas(text, 10);
  // one SSE event opens the message, then one per delta
  return {
    script: { steps: [{ type: "text" as const, text, deltas: 10 }], pauseAfterEvents: 5, resumeWhen },
    shown: pieces.slice(0, 4).join(""),
    release,
  };
}

/** Sends `prompt`, its reply paused mid-stream, and waits until the page shows what was streamed. */
async function startPausedTurn(prompt: string, text: string, ...after: MockScript[]) {
  const reply = pausedReply(text);
  server.mock.enqueue(reply.script, ...after);
  await send(prompt);
  await page.locator(".item.agent", { hasText: reply.shown }).waitFor(WAIT);
  return reply;
}

/** The page's WebSocket, routed through the test so it can be dropped; `hold` delays the next one. */
const sockets: { current?: WebSocketRoute; hold?: Promise<void> } = {};

/** Another client of the same server, as a program connects (the token in a header). */
function otherClient(name: string) {
  const token = new URLSearchParams(server.link.split("#")[1]).get("token")!;
  return connectWebSocket(server.origin.replace(/^http/, "ws"), {
    token,
    initialize: { clientInfo: { name, version: "1" } },
  });
}

/** Another client, connected now; `ended` resolves when it hears a turn complete. */
async function watchTurnCompleted(): Promise<{ ended: Promise<void> }> {
  const watcher = await otherClient("watcher");
  const ended = new Promise<void>((resolve) => {
    watcher.client.onNotification("thread/turn/completed", () => resolve());
  }).finally(() => watcher.client.close());
  return { ended };
}

beforeAll(async () => {
  shots = await mkdtemp(join(tmpdir(), "knightcode-web-shots-"));
  server = await startWebChild();
  await writeFile(join(server.agent.cwd, "greeting.ts"), 'export const greeting = "hello world";\n');
  // a git checkout, so its turns get turn/diff/updated
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["add", "-A"],
    ["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "init"],
  ]) {
    if (Bun.spawnSync(["git", ...args], { cwd: server.agent.cwd }).exitCode !== 0)
      throw new Error(`git ${args[0]}`);
  }
  browser = await launchBrowser();
  page = browser.page;
  await page.routeWebSocket(/.*/, async (socket) => {
    sockets.current = socket;
    await sockets.hold;
    socket.connectToServer();
  });
  page.on("request", (request) => {
    if (!request.url().startsWith(server.origin)) foreignRequests.push(request.url());
  });
}, TEST_TIMEOUT);

afterAll(async () => {
  await browser?.[Symbol.asyncDispose]();
  await server?.[Symbol.asyncDispose]();
});

describe("the web client in chromium", () => {
  test(
    "pairs with the link: connects, keeps the token for the tab and takes it out of the address bar",
    async () => {
      await page.goto(server.link);
      await page.locator(".connection.connected").waitFor(WAIT);
      expect(page.url()).toBe(`${server.origin}/`);
      expect(await page.evaluate("sessionStorage.getItem('knightcode.token')")).toBe(
        new URLSearchParams(server.link.split("#")[1]).get("token"),
      );
      expect(await page.locator("#cwd").inputValue()).toBe(server.agent.cwd);
      await screenshot("paired");
    },
    TEST_TIMEOUT,
  );

  test(
    "starts a thread on the picked model in ask mode",
    async () => {
      await page.locator("#model").selectOption("mock-completions/mock-model");
      await page.locator("#approval-mode").selectOption("ask");
      await page.locator("#new-thread").click();
      await page.locator(".thread-row.open").waitFor(WAIT);
      // the composer opens once the thread is subscribed
      await page.locator("#composer textarea:enabled").waitFor(WAIT);
    },
    TEST_TIMEOUT,
  );

  test(
    "an edit asks first; the card offers the server's decisions and its diff; allowing shows the tool block with the diff; the reply streams in as markdown",
    async () => {
      const reply = pausedReply(
        "Changed **greeting.ts** as asked: the greeting now names the browser instead of the whole world, " +
          'which is what you wanted.\n\n```ts\nexport const greeting = "hello browser";\n```\n\nAnything else?',
      );
      server.mock.enqueue(
        toolCallReply({
          name: "edit",
          arguments: { path: "greeting.ts", edits: [{ oldText: "world", newText: "browser" }] },
          id: "call_edit",
        }),
        reply.script,
      );
      await send("Greet the browser instead of the world");

      const card = page.locator(".approval-card");
      await card.waitFor(WAIT);
      const decisions = await card
        .locator("button[data-decision]")
        .evaluateAll((buttons) => buttons.map((button) => button.getAttribute("data-decision")));
      expect(decisions).toContain("accept");
      expect(decisions).toContain("decline");
      expect(await card.locator(".diff-add").allTextContents()).toContain(
        '+export const greeting = "hello browser";\n',
      );
      await screenshot("approval");
      // a reload does not lose the question: the server asks the thread's next subscriber
      await page.reload();
      await page.locator(".connection.connected").waitFor(WAIT);
      await card.waitFor(WAIT);
      expect(await page.locator(".approval-card").count()).toBe(1);
      await card.locator('button[data-decision="accept"]').click();
      await card.waitFor({ state: "detached", ...WAIT });

      const tool = page.locator('.item.tool[data-tool="edit"]');
      await tool.locator(".diff-add", { hasText: "hello browser" }).waitFor(WAIT);
      await tool.locator(".diff-del", { hasText: "hello world" }).waitFor(WAIT);
      expect(await readFile(join(server.agent.cwd, "greeting.ts"), "utf8")).toContain("hello browser");

      const agent = page.locator(".item.agent").last();
      await page.locator(".item.agent", { hasText: "Changed" }).waitFor(WAIT);
      // streamed so far: the start of the reply, rendered, and not yet its end
      // streamed so far: the start of the reply, rendered, and not yet its end
      expect(await agent.textContent()).toContain(reply.shown.replaceAll("**", ""));
      expect(await agent.textContent()).not.toContain("Anything else?");
      expect(await agent.textContent()).not.toContain("Anything else?");
      expect(await page.locator(".turn-status.status-inProgress").count()).toBe(1);
      await screenshot("streaming");
      reply.release();

      await page.locator(".turn.status-completed").first().waitFor(WAIT);
      // the turn's diff (turn/diff/updated), folded under the turn, kept when the turn completed
      const turnDiff = page.locator(".turn.status-completed .turn-diff").first();
      await turnDiff
        .locator(".diff-add", { hasText: "hello browser" })
        .waitFor({ state: "attached", ...WAIT });
      expect(await turnDiff.locator("summary").textContent()).toBe("Changes of this turn (1 file)");
      expect(await agent.locator("strong").textContent()).toBe("greeting.ts");
      expect(await agent.locator("code.language-ts .hljs-keyword").first().textContent()).toBe("export");
      await screenshot("reply-with-diff");
    },
    TEST_TIMEOUT,
  );

  test(
    "Interrupt stops the running turn, which ends interrupted",
    async () => {
      const reply = await startPausedTurn(
        "Count to ten slowly",
        "Counting: one, two, three, four, five, six, seven, eight, nine, ten.",
      );
      await page.locator('#composer button[name="interrupt"]').click();
      await page.locator(".turn.status-interrupted").waitFor(WAIT);
      expect(await page.locator('#composer button[name="send"]').isVisible()).toBe(true);
      await screenshot("interrupted");
      reply.release();
    },
    TEST_TIMEOUT,
  );

  test(
    "a reload in the middle of a turn reopens the thread and the turn goes on to its end",
    async () => {
      const reply = await startPausedTurn(
        "Tell me a short story",
        "Once upon a time a page was reloaded, and nothing it was shown got lost on the way.",
      );

      await page.reload();
      await page.locator(".connection.connected").waitFor(WAIT);
      await page.locator(".item.agent", { hasText: reply.shown }).waitFor(WAIT);
      await page.locator(".turn.status-inProgress").waitFor(WAIT);
      await screenshot("reloaded-mid-turn");
      reply.release();

      await page.locator(".item.agent", { hasText: "got lost on the way." }).waitFor(WAIT);
      await page.locator(".turn.status-completed").nth(1).waitFor(WAIT);
      expect(await page.locator(".turn").count()).toBe(3);
      await screenshot("turn-finished-after-reload");
    },
    TEST_TIMEOUT,
  );

  test(
    "a dropped socket reconnects by itself and gets exactly what it missed while away",
    async () => {
      const reply = await startPausedTurn(
        "Keep talking while I am away",
        "Still here: every word of this reply reaches the page, even the ones sent while it was away.",
      );
      const { ended } = await watchTurnCompleted();
      let reconnect!: () => void;
      sockets.hold = new Promise<void>((resolve) => {
        reconnect = resolve;
      });
      await sockets.current!.close({ code: 1006 });
      await page.locator(".connection.disconnected").waitFor(WAIT);
      // the rest of the turn happens while the page cannot reach the server
      reply.release();
      await ended;
      reconnect();

      await page.locator(".connection.connected", { hasText: "missed updates replayed" }).waitFor(WAIT);
      const agent = page.locator(".item.agent", { hasText: "even the ones sent while it was away." });
      await agent.waitFor(WAIT);
      // each delta once: the text is the reply, not the reply with a replayed part twice
      expect((await agent.textContent())?.trim()).toBe(
        "Still here: every word of this reply reaches the page, even the ones sent while it was away.",
      );
      await page.locator(".turn.status-completed").nth(2).waitFor(WAIT);
      await screenshot("reconnected-caught-up");
    },
    TEST_TIMEOUT,
  );

  test(
    "while a turn runs, Steer hands it text the model then sees, and Queue holds a follow-up until removed",
    async () => {
      const reply = await startPausedTurn(
        "Do the long task",
        "Working on it: reading, thinking, writing, checking, done with the first part.",
        { steps: [{ type: "text", text: "Steered as asked." }] },
      );

      await page.locator("#composer textarea").fill("Also mention the steer");
      await page.locator('#composer button[name="steer"]').click();
      await page.locator("#queue .steering", { hasText: "Also mention the steer" }).waitFor(WAIT);

      await page.locator("#composer textarea").fill("A follow-up for later");
      await page.locator('#composer button[name="queue"]').click();
      const queued = page.locator("#queue .follow-up", { hasText: "A follow-up for later" });
      await queued.waitFor(WAIT);
      await screenshot("steer-and-queue");
      await queued.locator("button").click();
      await queued.waitFor({ state: "detached", ...WAIT });

      const requestsBefore = server.mock.requests.length;
      reply.release();
      await page.locator(".item.agent", { hasText: "Steered as asked." }).waitFor(WAIT);
      expect(server.mock.requests.length).toBe(requestsBefore + 1);
      expect(server.mock.requests.at(-1)!.rawBody).toContain("Also mention the steer");
      expect(server.mock.requests.at(-1)!.rawBody).not.toContain("A follow-up for later");
      await page.locator(".turn.status-completed").nth(3).waitFor(WAIT);
    },
    TEST_TIMEOUT,
  );

  test(
    "the search box keeps the threads whose title has every word",
    async () => {
      await page.locator("#new-thread").click();
      await page.locator(".thread-row").nth(1).waitFor(WAIT);
      await page.locator("#search").fill("greet BROWSER");
      expect(await page.locator(".thread-row").count()).toBe(1);
      expect(await page.locator(".thread-row .thread-title").textContent()).toContain("Greet the browser");
      await page.locator("#search").fill("");
      expect(await page.locator(".thread-row").count()).toBe(2);
      // back to the first thread for the tree
      await page.locator(".thread-row", { hasText: "Greet the browser" }).locator("button").click();
      await page.locator(".item.agent", { hasText: "Steered as asked." }).waitFor(WAIT);
    },
    TEST_TIMEOUT,
  );

  test(
    "the session tree lists the thread's messages, the current branch marked",
    async () => {
      await page.locator("#tree-toggle").click();
      const rows = page.locator("#tree-panel .tree-row");
      await rows.first().waitFor(WAIT);
      // five prompts and the steer
      expect(await page.locator("#tree-panel .tree-row.kind-user").count()).toBe(6);
      expect(await page.locator("#tree-panel .tree-row.leaf").count()).toBe(1);
      await screenshot("session-tree");

      // continuing after the first reply: the conversation is that branch, one turn long
      const firstReply = page.locator("#tree-panel .tree-row.kind-assistant", {
        hasText: "as asked: the greeting",
      });
      await firstReply.locator("button").click();
      await page.locator("#tree-panel").waitFor({ state: "hidden", ...WAIT });
      // one turn left: the second one goes (the page's CSP forbids evaluating strings in it)
      await page
        .locator("#conversation .turn")
        .nth(1)
        .waitFor({ state: "detached", ...WAIT });
      expect(await page.locator("#conversation .turn").count()).toBe(1);
      await page.locator("#tree-toggle").click();
      await page.locator("#tree-panel .tree-row.leaf", { hasText: "as asked: the greeting" }).waitFor(WAIT);
      await screenshot("session-tree-moved");
    },
    TEST_TIMEOUT,
  );

  test(
    "a long thread shows its newest page of turns, and Load older turns brings the rest",
    async () => {
      const FIRST_REPLY = /^\s*reply number 1\s*$/;
      // 51 turns made by another client, one more than a history page holds
      const other = await otherClient("history-maker");
      const { thread } = await other.client.request("thread/start", {
        cwd: server.agent.cwd,
        approvalMode: "fullAccess",
        model: { provider: MOCK_PROVIDERS.completions, id: MOCK_MODEL_ID },
      });
      for (let turn = 1; turn <= HISTORY_PAGE_TURNS + 1; turn++) {
        server.mock.enqueue(textReply(`reply number ${turn}`));
        const completed = new Promise<void>((resolve) => {
          const off = other.client.onNotification("turn/completed", () => {
            off();
            resolve();
          });
        });
        await other.client.request("turn/start", { threadId: thread.id, text: `prompt number ${turn}` });
        await completed;
      }
      await other.client.request("thread/unsubscribe", { threadId: thread.id });
      await other.client.close();

      await page.locator("#cwd-form button[type=submit]").click();
      await page.locator(".thread-row", { hasText: "prompt number 1" }).locator("button").click();
      await page.locator(".item.agent", { hasText: `reply number ${HISTORY_PAGE_TURNS + 1}` }).waitFor(WAIT);
      expect(await page.locator("#conversation .turn").count()).toBe(HISTORY_PAGE_TURNS);
      expect(await page.locator(".item.agent", { hasText: FIRST_REPLY }).count()).toBe(0);
      await page.locator("#older").click();
      await page.locator(".item.agent", { hasText: FIRST_REPLY }).waitFor(WAIT);
      expect(await page.locator("#conversation .turn").count()).toBe(HISTORY_PAGE_TURNS + 1);
      expect(await page.locator("#older").isVisible()).toBe(false);
    },
    TEST_TIMEOUT,
  );

  test(
    "reasoning shows collapsed; a block the reader opens stays open when the turn completes",
    async () => {
      let release!: () => void;
      const resumeWhen = new Promise<void>((resolve) => {
        release = resolve;
      });
      server.mock.enqueue({
        steps: [
          { type: "reasoning", text: "Weighing whether the greeting should be formal." },
          { type: "text", text: "A friendly greeting it is.", deltas: 4 },
        ],
        pauseAfterEvents: 3,
        resumeWhen,
      });
      await send("Think about the tone first");
      const reasoning = page.locator("details.item.reasoning").last();
      await reasoning.waitFor(WAIT);
      expect(await reasoning.getAttribute("open")).toBeNull();
      await reasoning.locator("summary").click();
      expect(await reasoning.getAttribute("open")).not.toBeNull();
      release();
      await page.locator(".item.agent", { hasText: "A friendly greeting it is." }).waitFor(WAIT);
      // the turn's own completion redraws it: wait for the newest turn to be completed
      await page.locator("#conversation > .turn.status-completed:last-child").waitFor(WAIT);
      expect(await page.locator("details.item.reasoning").last().getAttribute("open")).not.toBeNull();
      expect(await page.locator("details.item.reasoning").last().textContent()).toContain("formal");
    },
    TEST_TIMEOUT,
  );

  test(
    "a tab with a wrong token says so and keeps retrying; a tab without one says how to pair",
    async () => {
      const wrong = await browser.context.newPage();
      await wrong.goto(`${server.origin}/#token=not-the-token`);
      await wrong.locator(".connection.disconnected", { hasText: "refused this tab's token" }).waitFor(WAIT);
      expect(wrong.url()).toBe(`${server.origin}/`);
      await wrong.close();

      const unpaired = await browser.context.newPage();
      await unpaired.goto(`${server.origin}/`);
      await unpaired.locator("#connection", { hasText: "Not paired" }).waitFor(WAIT);
      await unpaired.close();
    },
    TEST_TIMEOUT,
  );

  test(
    "the page loaded nothing from anywhere but its own server",
    () => {
      expect(foreignRequests).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
