import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  everythingServer,
  filesystemServer,
  MOCK_PROVIDERS,
  missingCommandServer,
  textReply,
  toolCallReply,
} from "@knightcode/testkit";
import { type MockedAgent, mockedAgent, requestText, runCli } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

async function git(cwd: string, ...args: string[]): Promise<void> {
  const child = Bun.spawn(["git", ...args], { cwd, stdout: "ignore", stderr: "pipe" });
  if ((await child.exited) !== 0)
    throw new Error(`git ${args.join(" ")}: ${await new Response(child.stderr).text()}`);
}

/** Adds `mcpServers` to the agent dir's settings, keeping what is there. */
function addMcpServers(agentDir: string, mcpServers: Record<string, unknown>): void {
  const path = join(agentDir, "settings.json");
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), mcpServers }));
}

/**
 * A terminal on `env` with server-everything configured, returned once `/mcp` shows the
 * server ready (its prompts are listed from then on).
 */
async function terminalWithEverythingReady(env: MockedAgent): Promise<PtySession> {
  addMcpServers(env.agent.agentDir, { everything: everythingServer() });
  const tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
  try {
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/mcp");
    await tty.waitFor(/everything stdio · global ready/);
    return tty;
  } catch (error) {
    await tty[Symbol.asyncDispose]();
    throw error;
  }
}

/** A new repository in `cwd` with everything there (bar what it ignores) in one commit. */
async function commitEverything(cwd: string): Promise<void> {
  await git(cwd, "init", "-q");
  await git(cwd, "-c", "user.email=t@t", "-c", "user.name=t", "add", ".");
  await git(cwd, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
}

describe("built-in commands in the terminal", () => {
  test("/mcp lists the thread's MCP servers from mcpServer/list: state, origin, tools, and why one failed", async () => {
    await using env = await mockedAgent();
    addMcpServers(env.agent.agentDir, {
      files: filesystemServer(env.agent.cwd),
      ghost: missingCommandServer(),
    });
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/mcp");
    const screen = await tty.waitFor("MCP servers");
    expect(screen).toMatch(/files stdio · global ready/);
    expect(screen).toContain("mcp__files__read_text_file");
    expect(screen).toMatch(/ghost stdio · global failed/);
    expect(screen).toContain("command not found: knightcode-test-no-such-mcp-server");
  }, 30_000);

  test("/ completion lists an MCP server's prompts with their declared arguments", async () => {
    await using env = await mockedAgent();
    await using tty = await terminalWithEverythingReady(env);
    tty.write("/mcp__everything__args");
    const screen = await tty.waitFor("/mcp__everything__args-prompt");
    expect(screen).toMatch(/\/mcp__everything__args-prompt\s+<city> \[state\]/);
  }, 30_000);

  test("/ completion of an MCP prompt's arguments offers the server's values (completion/complete), narrowed by the words before", async () => {
    await using env = await mockedAgent();
    await using tty = await terminalWithEverythingReady(env);
    tty.write("/mcp__everything__completable-prompt Sa");
    await tty.waitFor(/Sales\s+department/);
    tty.write(KEYS.tab);
    await tty.waitFor("/mcp__everything__completable-prompt Sales ");
    tty.write("F");
    const names = await tty.waitFor(/Frank\s+name/);
    expect(names).not.toContain("Alice");
  }, 30_000);

  test("/mcp without servers says so", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/mcp");
    await tty.waitFor("No MCP servers are configured for this thread.");
  }, 30_000);

  test("/reload goes to the server's built-in: the extensions shut down and start again with reason reload", async () => {
    await using env = await mockedAgent();
    const extension = join(import.meta.dir, "fixtures", "lifecycle-notes.ts");
    await using tty = new PtySession(["-e", extension], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/reload");
    const screen = await tty.waitFor("Reloaded the extensions.");
    expect(screen).toContain("lifecycle session_shutdown reload");
    expect(screen).toContain("lifecycle session_start reload");
    expect(screen.indexOf("lifecycle session_shutdown reload")).toBeLessThan(
      screen.indexOf("lifecycle session_start reload"),
    );
    // a command, not a model turn
    expect(env.mock.requests.length).toBe(0);
  }, 30_000);

  test("/resume picks an earlier session of this project by search, and the conversation continues there", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("noted zebra"), textReply("noted yak"));
    for (const prompt of ["remember zebra", "remember yak"]) {
      expect((await runCli(["-p", prompt], { cwd: env.agent.cwd, env: env.env })).code).toBe(0);
    }
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/resume");
    await tty.waitFor("Resume which session?");
    const picker = await tty.waitFor("remember yak");
    // newest first
    expect(picker.indexOf("remember yak")).toBeLessThan(picker.indexOf("remember zebra"));
    tty.write("zebra");
    await tty.waitFor("Search: zebra");
    tty.write(KEYS.enter);
    await tty.waitFor("noted zebra");
    env.mock.enqueue(textReply("back in the zebra session"));
    tty.type("what did I ask?");
    await tty.waitFor("back in the zebra session");
    const sent = requestText(env.mock.requests.at(-1)!.body);
    expect(sent).toContain("remember zebra");
    expect(sent).not.toContain("remember yak");
  }, 40_000);

  test("-r opens the picker at start", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("stored"));
    expect((await runCli(["-p", "an earlier question"], { cwd: env.agent.cwd, env: env.env })).code).toBe(0);
    await using tty = new PtySession(["-r"], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("an earlier question");
    tty.write(KEYS.enter);
    await tty.waitFor("stored");
  }, 30_000);

  test("/model switches the thread's model: the footer names it and the next request uses its wire format", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/model");
    await tty.waitFor("Which model?");
    tty.write(MOCK_PROVIDERS.anthropic);
    await tty.waitFor(`Search: ${MOCK_PROVIDERS.anthropic}`);
    tty.write(KEYS.enter);
    await tty.waitFor(`Model: ${MOCK_PROVIDERS.anthropic}/mock-model`);
    env.mock.enqueue(textReply("answered over the Messages API"));
    tty.type("hello");
    await tty.waitFor("answered over the Messages API");
    expect(env.mock.requests.at(-1)!.format).toBe("anthropic-messages");
    expect(tty.visible().join("\n")).toContain(`${MOCK_PROVIDERS.anthropic}/mock-model`);
  }, 30_000);

  test("/settings opens the approval list on the current mode, marked, and switches it: a write then asks, where fullAccess ran it", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/settings");
    await tty.waitFor("Settings (Esc to close)");
    tty.write(KEYS.down);
    tty.write(KEYS.enter);
    // the list opens on the mode in effect, marked
    const list = await tty.waitFor("fullAccess ●");
    expect(list).toMatch(/→ fullAccess ●/);
    tty.write(KEYS.up);
    tty.write(KEYS.up);
    await tty.waitFor(/→ ask/);
    tty.write(KEYS.enter);
    await tty.waitFor("Approval mode: ask");
    env.mock.enqueue(
      toolCallReply({ name: "write", arguments: { path: "s.txt", content: "S\n" } }),
      textReply("done"),
    );
    tty.type("write s.txt");
    await tty.waitFor("Allow write s.txt");
    expect(existsSync(join(env.agent.cwd, "s.txt"))).toBe(false);
    tty.write(KEYS.enter);
    await tty.waitFor("done");
    expect(readFileSync(join(env.agent.cwd, "s.txt"), "utf8")).toBe("S\n");
  }, 30_000);

  test("/undo restores the files the last turn changed, in a git repository", async () => {
    await using env = await mockedAgent();
    const cwd = env.agent.cwd;
    writeFileSync(join(cwd, "kept.txt"), "original\n");
    await commitEverything(cwd);
    writeFileSync(join(cwd, "draft.txt"), "uncommitted draft\n");
    env.mock.enqueue(
      toolCallReply(
        {
          name: "edit",
          arguments: { path: "kept.txt", edits: [{ oldText: "original", newText: "changed" }] },
        },
        { name: "write", arguments: { path: "draft.txt", content: "overwritten\n" } },
        { name: "write", arguments: { path: "new.txt", content: "brand new\n" } },
      ),
      textReply("Changed three files."),
    );
    await using tty = new PtySession([], { cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("change things");
    await tty.waitForTurnEnd("Changed three files.");
    expect(readFileSync(join(cwd, "kept.txt"), "utf8")).toBe("changed\n");
    tty.type("/undo");
    await tty.waitFor("Undid the last turn's file changes (3)");
    expect(readFileSync(join(cwd, "kept.txt"), "utf8")).toBe("original\n");
    expect(readFileSync(join(cwd, "draft.txt"), "utf8")).toBe("uncommitted draft\n");
    expect(existsSync(join(cwd, "new.txt"))).toBe(false);
    tty.type("/undo");
    await tty.waitFor("Nothing more to undo: the turn since knightcode started was undone already.");
  }, 30_000);

  test("/undo restores git-ignored files the turn changed; one inside an ignored folder or outside the repository is named as not restored; touched files are covered from then on", async () => {
    await using env = await mockedAgent();
    const cwd = env.agent.cwd;
    writeFileSync(join(cwd, ".gitignore"), "*.local.json\nbuild/\nnode_modules/\n");
    writeFileSync(join(cwd, "config.local.json"), '{"port": 1}\n');
    mkdirSync(join(cwd, "build"));
    writeFileSync(join(cwd, "build", "out.txt"), "built once\n");
    mkdirSync(join(cwd, "node_modules", "dep"), { recursive: true });
    const dependency = "module.exports = 'never checkpointed';\n";
    writeFileSync(join(cwd, "node_modules", "dep", "index.js"), dependency);
    await commitEverything(cwd);
    env.mock.enqueue(
      toolCallReply(
        {
          name: "edit",
          arguments: { path: "config.local.json", edits: [{ oldText: '"port": 1', newText: '"port": 2' }] },
        },
        { name: "write", arguments: { path: "secrets.local.json", content: "{}\n" } },
        { name: "write", arguments: { path: "build/out.txt", content: "built twice\n" } },
        { name: "write", arguments: { path: "../outside.txt", content: "beyond the repository\n" } },
      ),
      textReply("Changed the ignored files."),
    );
    await using tty = new PtySession([], { cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("change the config");
    await tty.waitForTurnEnd("Changed the ignored files.");
    expect(readFileSync(join(cwd, "config.local.json"), "utf8")).toBe('{"port": 2}\n');
    tty.type("/undo");
    const screen = await tty.waitFor("Not restored, still as the turn left them (2)");
    expect(screen).toContain("Undid the last turn's file changes (2)");
    expect(screen).toMatch(/restored config\.local\.json/);
    expect(screen).toMatch(/removed\s+secrets\.local\.json/);
    expect(screen).toMatch(/build\/out\.txt \(ignored by git and not in the checkpoint/);
    expect(screen.replace(/\s+/g, " ")).toMatch(/outside\.txt \(outside the git repository\)/);
    expect(readFileSync(join(cwd, "config.local.json"), "utf8")).toBe('{"port": 1}\n');
    expect(existsSync(join(cwd, "secrets.local.json"))).toBe(false);
    expect(existsSync(join(cwd, "..", "outside.txt"))).toBe(true);
    expect(readFileSync(join(cwd, "build", "out.txt"), "utf8")).toBe("built twice\n");
    // the ignored folder was never walked: its file's content is not in the object store
    const hash = Bun.spawnSync(["git", "hash-object", "--stdin"], { cwd, stdin: Buffer.from(dependency) });
    const lookup = Bun.spawnSync(["git", "cat-file", "-e", hash.stdout.toString().trim()], { cwd });
    expect(lookup.exitCode).not.toBe(0);

    // a file a turn changed is in every later checkpoint, even inside an ignored folder
    env.mock.enqueue(
      toolCallReply({ name: "write", arguments: { path: "build/out.txt", content: "built thrice\n" } }),
      textReply("Rebuilt."),
    );
    tty.type("rebuild");
    await tty.waitForTurnEnd("Rebuilt.");
    expect(readFileSync(join(cwd, "build", "out.txt"), "utf8")).toBe("built thrice\n");
    tty.type("/undo");
    await tty.waitFor("Undid the last turn's file changes (1)");
    expect(readFileSync(join(cwd, "build", "out.txt"), "utf8")).toBe("built twice\n");
  }, 30_000);

  test("/undo outside a git repository says that no checkpoint exists", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/undo");
    await tty.waitFor("/undo needs a git repository");
  }, 30_000);

  test("/session shows the ID and file; /usage the tokens and cost; /quit exits 0", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue({ steps: [{ type: "text", text: "counted" }], usage: { input: 1200, output: 34 } });
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("count me");
    await tty.waitFor("counted");
    tty.type("/session");
    const screen = await tty.waitFor("Messages 1 user, 1 assistant, 0 tool calls");
    expect(screen).toMatch(/ID\s+\S{8,}/);
    // the folder and the file name on lines of their own, so the name never wraps
    expect(screen).toMatch(/^ {2}Folder {3}\S+\/$/m);
    expect(screen).toMatch(/^ {2}File {5}\S+_[0-9a-f-]{36}\.jsonl$/m);
    tty.type("/usage");
    await tty.waitFor("1,200 in, 34 out");
    tty.type("/quit");
    expect(await tty.exited).toBe(0);
  }, 30_000);

  test("!echo output shows and reaches the next model request; !! output shows but stays out of the context", async () => {
    await using env = await mockedAgent();
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("!echo hi-in-context");
    await tty.waitFor(/^hi-in-context\s*$/m);
    tty.type("!!echo kept-private");
    await tty.waitFor(/^kept-private\s*$/m);
    env.mock.enqueue(textReply("saw the shell output"));
    tty.type("what ran?");
    await tty.waitFor("saw the shell output");
    const sent = requestText(env.mock.requests[0]!.body);
    expect(sent).toContain("Ran `echo hi-in-context`");
    expect(sent).toContain("hi-in-context");
    expect(sent).not.toContain("kept-private");
  }, 30_000);

  test("/tree puts the whole chosen message back into the editor, not the tree's 200-character preview", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("first answer"), textReply("second answer"));
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("question one");
    await tty.waitFor("first answer");
    const head = `long question ${"with many words ".repeat(12)}`.trim();
    const tail = `second line ${"and still more ".repeat(6)}ends at TAIL-MARKER`;
    expect(head.length + tail.length).toBeGreaterThan(250);
    // Ctrl+J starts a new line in the editor
    tty.type(`${head}\n${tail}`);
    await tty.waitFor("second answer");
    tty.type("/tree");
    await tty.waitFor("Continue from before which message?");
    tty.write("long question");
    await tty.waitFor("Search: long question");
    tty.write(KEYS.enter);
    await tty.waitFor("Summarize the branch you are leaving?");
    tty.write(KEYS.enter);
    await tty.waitFor("Moved to an earlier point");
    await tty.waitFor((screen) => screen.replace(/\s+/g, " ").includes("ends at TAIL-MARKER"));
    // the move left no turn open behind it
    expect(tty.text()).not.toContain("Interrupted");
    // sending the editor as it is repeats the message exactly, both lines
    env.mock.enqueue(textReply("answer on the new branch"));
    tty.write(KEYS.enter);
    await tty.waitFor("answer on the new branch");
    const messages = (env.mock.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] })
      .messages;
    const lastUser = messages.filter((m) => m.role === "user").at(-1)!;
    expect(JSON.stringify(lastUser.content)).toContain(JSON.stringify(`${head}\n${tail}`).slice(1, -1));
    expect(requestText(env.mock.requests.at(-1)!.body)).not.toContain("second answer");
  }, 30_000);

  test("/tree moves to an earlier entry: the message returns to the editor and the later exchange leaves the context", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("first answer"), textReply("second answer"));
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("question one");
    await tty.waitFor("first answer");
    tty.type("question two");
    await tty.waitFor("second answer");
    tty.type("/tree");
    await tty.waitFor("Continue from before which message?");
    tty.write("two");
    await tty.waitFor("Search: two");
    tty.write(KEYS.enter);
    await tty.waitFor("Summarize the branch you are leaving?");
    tty.write(KEYS.enter);
    await tty.waitFor("Moved to an earlier point");
    // the editor holds "question two"; replace it with a different follow-up
    tty.write(KEYS.ctrlC);
    env.mock.enqueue(textReply("answer on the new branch"));
    tty.type("question three");
    await tty.waitFor("answer on the new branch");
    const sent = requestText(env.mock.requests.at(-1)!.body);
    expect(sent).toContain("question one");
    expect(sent).toContain("first answer");
    expect(sent).not.toContain("question two");
    expect(sent).not.toContain("second answer");
  }, 30_000);
});
