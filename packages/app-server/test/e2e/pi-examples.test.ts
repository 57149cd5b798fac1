/**
 * pi's own example extensions, loaded unmodified from the installed
 * `@mariozechner/pi-coding-agent` package by a real `knightcode app-server -e` child,
 * each one's effect observed through the protocol against the testkit's mock model.
 * The last test loads every example of the folder, prints the status table
 * (loaded / works / inert-without-UI / fails) and checks docs/pi-compatibility.md
 * carries the same table.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { AppServerClient, TurnCompletedNotification, Warning } from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import {
  E2E_TIMEOUT,
  type E2EServer,
  MOCK_MODEL,
  nextNotification,
  PI_EXAMPLES,
  recordNotifications,
  startThread,
  TARGETS,
} from "./harness.ts";
import { type ExampleStatus, exampleStatusTable, PI_EXAMPLE_NOTES } from "./pi-example-notes.ts";

const example = (name: string) => join(PI_EXAMPLES, name);
const stdio = TARGETS.find((t) => t.name === "stdio")!;
const DOC = join(import.meta.dir, "..", "..", "..", "..", "docs", "pi-compatibility.md");

/** Examples a test below proves the effect of (the table's `works`). */
const proved = new Set<string>();

/** A test proving one example's effect. */
function proves(name: string, title: string, run: () => Promise<void>, timeout = E2E_TIMEOUT): void {
  proved.add(name);
  test(`${name}: ${title}`, run, timeout);
}

/** Examples with npm dependencies: loaded from an installed copy by their own tests. */
const NEEDS_INSTALL = new Set(["custom-provider-anthropic", "sandbox", "with-deps"]);

function turnDone(client: AppServerClient, threadId: string): Promise<TurnCompletedNotification> {
  return nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
}

/** Starts a turn and waits for it to complete. */
async function runTurn(
  server: E2EServer,
  threadId: string,
  text: string,
): Promise<TurnCompletedNotification> {
  const done = turnDone(server.client, threadId);
  const started = await server.client.request("turn/start", { threadId, text });
  expect(started.status).toBe("started");
  return done;
}

const body = (server: E2EServer, index: number) => JSON.stringify(server.mock.requests[index]!.body);

function sessionLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const extensionWarnings = (warnings: Warning[]) => warnings.filter((w) => w.source === "extension");

/** Copies an example folder unmodified and installs its locked dependencies there. */
async function installedCopy(name: string, into: string): Promise<string> {
  const target = join(into, name);
  cpSync(example(name), target, { recursive: true });
  const npm = Bun.spawn(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: target,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([npm.exited, new Response(npm.stderr).text()]);
  if (code !== 0) throw new Error(`npm ci in ${target} failed: ${stderr}`);
  return target;
}

describe("pi example extensions on a real app-server child", () => {
  proves("hello.ts", "the model calls its tool and reads the greeting", async () => {
    await using server = await stdio.start({ extensions: [example("hello.ts")] });
    server.mock.enqueue(
      toolCallReply({ name: "hello", arguments: { name: "Ada" }, id: "c1" }),
      textReply("ok"),
    );
    const { threadId, warnings } = await startThread(server.client, server.agent.cwd);
    expect(extensionWarnings(warnings)).toEqual([]);
    expect((await runTurn(server, threadId, "greet Ada")).turn.status).toBe("completed");
    expect(body(server, 0)).toContain('"hello"');
    expect(body(server, 1)).toContain("Hello, Ada!");
  });

  proves("protected-paths.ts", "a write to .env is blocked with its reason and no file appears", async () => {
    await using server = await stdio.start({ extensions: [example("protected-paths.ts")] });
    server.mock.enqueue(
      toolCallReply({ name: "write", arguments: { path: ".env", content: "SECRET=1\n" }, id: "c1" }),
      textReply("understood"),
    );
    const { threadId } = await startThread(server.client, server.agent.cwd);
    await runTurn(server, threadId, "write the env file");
    expect(existsSync(join(server.agent.cwd, ".env"))).toBe(false);
    expect(body(server, 1)).toContain('Path \\".env\\" is protected');
  });

  proves(
    "permission-gate.ts",
    "a dangerous bash command is blocked without a UI and nothing is deleted",
    async () => {
      await using server = await stdio.start({ extensions: [example("permission-gate.ts")] });
      const victim = join(server.agent.cwd, "keep");
      mkdirSync(victim);
      server.mock.enqueue(
        toolCallReply({ name: "bash", arguments: { command: `rm -rf ${victim}` }, id: "c1" }),
        textReply("ok"),
      );
      const { threadId } = await startThread(server.client, server.agent.cwd);
      await runTurn(server, threadId, "clean up");
      expect(existsSync(victim)).toBe(true);
      expect(body(server, 1)).toContain("Dangerous command blocked (no UI for confirmation)");
    },
  );

  proves("tool-override.ts", "read is the extension's, logs to the agent dir and refuses .env", async () => {
    await using server = await stdio.start({ extensions: [example("tool-override.ts")] });
    writeFileSync(join(server.agent.cwd, "notes.txt"), "NOTES-CONTENT\n");
    writeFileSync(join(server.agent.cwd, ".env"), "SECRET=1\n");
    server.mock.enqueue(
      toolCallReply(
        { name: "read", arguments: { path: "notes.txt" }, id: "c1" },
        { name: "read", arguments: { path: ".env" }, id: "c2" },
      ),
      textReply("read them"),
    );
    const { threadId } = await startThread(server.client, server.agent.cwd);
    await runTurn(server, threadId, "read files");
    expect(body(server, 0)).toContain("with access logging");
    const second = body(server, 1);
    expect(second).toContain("NOTES-CONTENT");
    expect(second).toContain("Access denied");
    expect(second).not.toContain("SECRET=1");
    const log = readFileSync(join(server.agent.agentDir, "read-access.log"), "utf8");
    expect(log).toContain(`ALLOWED: ${join(server.agent.cwd, "notes.txt")}`);
    expect(log).toContain(`BLOCKED: ${join(server.agent.cwd, ".env")}`);
  });

  proves("input-transform.ts", "ping is handled without the model, ?quick is rewritten", async () => {
    await using server = await stdio.start({ extensions: [example("input-transform.ts")] });
    const { threadId } = await startThread(server.client, server.agent.cwd);
    const handled = await server.client.request("turn/start", { threadId, text: "ping" });
    expect(handled.status).toBe("handled");
    expect(server.mock.requests.length).toBe(0);
    server.mock.enqueue(textReply("brief"));
    await runTurn(server, threadId, "?quick what is TypeScript");
    expect(body(server, 0)).toContain("Respond briefly in 1-2 sentences: what is TypeScript");
  });

  proves("inline-bash.ts", "!{command} in a prompt is replaced by its output", async () => {
    await using server = await stdio.start({ extensions: [example("inline-bash.ts")] });
    const { threadId } = await startThread(server.client, server.agent.cwd);
    server.mock.enqueue(textReply("seen"));
    await runTurn(server, threadId, "the answer is !{echo $((6 * 7))} today");
    expect(body(server, 0)).toContain("the answer is 42 today");
  });

  proves("pirate.ts", "/pirate switches the system prompt the model receives", async () => {
    await using server = await stdio.start({ extensions: [example("pirate.ts")] });
    const { threadId } = await startThread(server.client, server.agent.cwd);
    server.mock.enqueue(textReply("plain"), textReply("arrr"));
    await runTurn(server, threadId, "hello");
    expect(body(server, 0)).not.toContain("PIRATE MODE");
    const toggled = await server.client.request("turn/start", { threadId, text: "/pirate" });
    expect(toggled.status).toBe("handled");
    await runTurn(server, threadId, "hello again");
    expect(body(server, 1)).toContain("You are now in PIRATE MODE");
  });

  proves(
    "plan-mode",
    "--plan on the server's command line: read-only tools and the plan prompt",
    async () => {
      /** The tool names one recorded request offered the model. */
      const tools = (server: E2EServer) =>
        ((server.mock.requests[0]!.body as { tools?: { function: { name: string } }[] }).tools ?? []).map(
          (t) => t.function.name,
        );
      await using planned = await stdio.start({ extensions: [example("plan-mode")], args: ["--plan"] });
      const started = await planned.client.request("thread/start", {
        cwd: planned.agent.cwd,
        approvalMode: "fullAccess",
        model: MOCK_MODEL,
      });
      expect(extensionWarnings(started.warnings)).toEqual([]);
      expect(started.extensionFlags).toEqual([
        {
          name: "plan",
          type: "boolean",
          description: "Start in plan mode (read-only exploration)",
          path: join(PI_EXAMPLES, "plan-mode", "index.ts"),
          value: true,
        },
      ]);
      planned.mock.enqueue(textReply("Plan:\n1. Read the code"));
      await runTurn(planned, started.thread.id, "look around");
      expect(body(planned, 0)).toContain("[PLAN MODE ACTIVE]");
      expect(tools(planned)).toEqual(["read", "bash", "grep", "find", "ls"]);

      // the same extension without the flag: its default, all tools, no plan prompt
      await using normal = await stdio.start({ extensions: [example("plan-mode")] });
      const plain = await startThread(normal.client, normal.agent.cwd);
      normal.mock.enqueue(textReply("done"));
      await runTurn(normal, plain.threadId, "look around");
      expect(body(normal, 0)).not.toContain("[PLAN MODE ACTIVE]");
      expect(tools(normal)).toContain("edit");
    },
  );

  proves(
    "dynamic-tools.ts",
    "a tool registered at session start and one added by command both reach the model",
    async () => {
      await using server = await stdio.start({ extensions: [example("dynamic-tools.ts")] });
      const { threadId } = await startThread(server.client, server.agent.cwd);
      const added = await server.client.request("turn/start", { threadId, text: "/add-echo-tool shout" });
      expect(added.status).toBe("handled");
      server.mock.enqueue(
        toolCallReply(
          { name: "echo_session", arguments: { message: "one" }, id: "c1" },
          { name: "shout", arguments: { message: "two" }, id: "c2" },
        ),
        textReply("echoed"),
      );
      await runTurn(server, threadId, "echo");
      expect(body(server, 0)).toContain('"echo_session"');
      expect(body(server, 0)).toContain('"shout"');
      expect(body(server, 1)).toContain("[session] one");
      expect(body(server, 1)).toContain("[shout] two");
    },
  );

  proves(
    "structured-output.ts",
    "the terminating tool ends the turn with no further model request",
    async () => {
      await using server = await stdio.start({ extensions: [example("structured-output.ts")] });
      const { threadId } = await startThread(server.client, server.agent.cwd);
      server.mock.enqueue(
        toolCallReply({
          name: "structured_output",
          arguments: { headline: "Done", summary: "All good", actionItems: ["ship"] },
          id: "c1",
        }),
        textReply("must not be requested"),
      );
      expect((await runTurn(server, threadId, "summarize as structured output")).turn.status).toBe(
        "completed",
      );
      expect(server.mock.requests.length).toBe(1);
      const { thread } = await server.client.request("thread/read", { threadId });
      const result = sessionLines(thread.path!).find(
        (l) => (l.message as { role?: string } | undefined)?.role === "toolResult",
      );
      expect(JSON.stringify(result)).toContain("Saved structured output: Done");
    },
  );

  proves("todo.ts", "todos come back from the session when another server resumes the thread", async () => {
    await using first = await stdio.start({ extensions: [example("todo.ts")] });
    const { threadId } = await startThread(first.client, first.agent.cwd);
    first.mock.enqueue(
      toolCallReply({ name: "todo", arguments: { action: "add", text: "buy milk" }, id: "c1" }),
      textReply("added"),
    );
    await runTurn(first, threadId, "remember milk");
    await first.shutdown();
    // a second server process on the same agent dir (the first one's mock model still serves)
    await using second = await stdio.start({ extensions: [example("todo.ts")], env: first.agent.env });
    first.mock.enqueue(
      toolCallReply({ name: "todo", arguments: { action: "list" }, id: "c2" }),
      textReply("listed"),
    );
    await second.client.request("thread/resume", { threadId });
    await runTurn(second, threadId, "what is left?");
    expect(JSON.stringify(first.mock.requests.at(-1)!.body)).toContain("[ ] #1: buy milk");
  });

  proves("session-name.ts", "/session-name names the thread", async () => {
    await using server = await stdio.start({ extensions: [example("session-name.ts")] });
    const { threadId } = await startThread(server.client, server.agent.cwd);
    const named = await server.client.request("turn/start", { threadId, text: "/session-name Release prep" });
    expect(named.status).toBe("handled");
    const { thread } = await server.client.request("thread/read", { threadId });
    expect(thread.name).toBe("Release prep");
  });

  proves("bookmark.ts", "/bookmark labels the last assistant message, /unbookmark clears it", async () => {
    await using server = await stdio.start({ extensions: [example("bookmark.ts")] });
    const { threadId } = await startThread(server.client, server.agent.cwd);
    server.mock.enqueue(textReply("worth keeping"));
    await runTurn(server, threadId, "say something");
    expect((await server.client.request("turn/start", { threadId, text: "/bookmark keeper" })).status).toBe(
      "handled",
    );
    const { thread } = await server.client.request("thread/read", { threadId });
    const lines = sessionLines(thread.path!);
    const assistant = lines.find((l) => (l.message as { role?: string } | undefined)?.role === "assistant")!;
    expect(lines).toContainEqual(
      expect.objectContaining({ type: "label", targetId: assistant.id, label: "keeper" }),
    );
    expect((await server.client.request("turn/start", { threadId, text: "/unbookmark" })).status).toBe(
      "handled",
    );
    const labels = sessionLines(thread.path!).filter((l) => l.type === "label");
    expect(labels.length).toBe(2);
    expect(labels[1]!.label).toBeUndefined();
  });

  proves("send-user-message.ts", "/ask sends its text as a user message that starts a turn", async () => {
    await using server = await stdio.start({ extensions: [example("send-user-message.ts")] });
    const { threadId } = await startThread(server.client, server.agent.cwd);
    server.mock.enqueue(textReply("answered"));
    const done = turnDone(server.client, threadId);
    const asked = await server.client.request("turn/start", { threadId, text: "/ask what is 2+2" });
    expect(asked.status).toBe("handled");
    expect((await done).turn.status).toBe("completed");
    expect(body(server, 0)).toContain("what is 2+2");
  });

  proves(
    "custom-compaction.ts",
    "/compact uses the summary the extension asked its own model for",
    async () => {
      await using server = await stdio.start({
        extensions: [example("custom-compaction.ts")],
        settings: { compaction: { keepRecentTokens: 10 } },
      });
      // the extension looks up google/gemini-2.5-flash: models.json serves it from the mock
      const models = JSON.parse(readFileSync(server.agent.modelsJsonPath, "utf8"));
      const mockProvider = Object.values(models.providers)[0] as { models: { id: string }[] };
      models.providers.google = {
        ...mockProvider,
        models: [{ ...mockProvider.models[0], id: "gemini-2.5-flash", name: "Gemini Flash (mock)" }],
      };
      writeFileSync(server.agent.modelsJsonPath, JSON.stringify(models));
      const { threadId } = await startThread(server.client, server.agent.cwd);
      server.mock.enqueue(textReply(`first answer ${"words ".repeat(200)}`), textReply("second answer"));
      await runTurn(server, threadId, "first question");
      await runTurn(server, threadId, "second question");
      server.mock.enqueue(textReply("SUMMARY-BY-EXTENSION"));
      await runTurn(server, threadId, "/compact");
      const summaryRequest = server.mock.requests.at(-1)!;
      expect(JSON.stringify(summaryRequest.body)).toContain("You are a conversation summarizer");
      expect(JSON.stringify(summaryRequest.body)).toContain('"gemini-2.5-flash"');
      const { thread } = await server.client.request("thread/read", { threadId });
      expect(sessionLines(thread.path!)).toContainEqual(
        expect.objectContaining({ type: "compaction", summary: "SUMMARY-BY-EXTENSION" }),
      );
    },
  );

  proves(
    "dynamic-resources",
    "the skill and prompt template it names at resources_discover are offered and expand",
    async () => {
      await using server = await stdio.start({ extensions: [example("dynamic-resources")] });
      const { threadId, warnings } = await startThread(server.client, server.agent.cwd);
      expect(extensionWarnings(warnings)).toEqual([]);
      const { commands } = await server.client.request("command/list", { threadId });
      const names = commands.map((c) => c.name);
      expect(names).toContain("skill:dynamic-resources");
      expect(names).toContain("dynamic");
      server.mock.enqueue(textReply("summarized"), textReply("skilled"));
      await runTurn(server, threadId, "/dynamic");
      expect(body(server, 0)).toContain("Summarize the current repository structure");
      await runTurn(server, threadId, "/skill:dynamic-resources now");
      expect(body(server, 1)).toContain("This skill is provided by the dynamic-resources extension.");
    },
  );

  proves(
    "with-deps",
    "a missing dependency is a load warning; after installing its dependencies its tool works",
    async () => {
      await using server = await stdio.start({});
      const bare = join(server.agent.root, "bare");
      cpSync(example("with-deps"), join(bare, "with-deps"), { recursive: true });
      const installed = await installedCopy("with-deps", join(server.agent.root, "installed"));
      await server.shutdown();
      await using broken = await stdio.start({ extensions: [join(bare, "with-deps")] });
      const { warnings } = await startThread(broken.client, broken.agent.cwd);
      expect(extensionWarnings(warnings)[0]?.message).toContain('Missing dependency "ms"');
      await using working = await stdio.start({ extensions: [installed] });
      working.mock.enqueue(
        toolCallReply({ name: "parse_duration", arguments: { duration: "2 days" }, id: "c1" }),
        textReply("ok"),
      );
      const { threadId, warnings: none } = await startThread(working.client, working.agent.cwd);
      expect(extensionWarnings(none)).toEqual([]);
      await runTurn(working, threadId, "how long is 2 days");
      expect(body(working, 1)).toContain("2 days = 172800000 milliseconds");
    },
    E2E_TIMEOUT * 2,
  );

  proves(
    "sandbox",
    "its bash override (spread of createBashTool, delegating execute) runs the model's commands",
    async () => {
      await using setup = await stdio.start({});
      const installed = await installedCopy("sandbox", join(setup.agent.root, "installed"));
      // the override's bash was built for the server's cwd: start the server elsewhere to tell it apart
      const serverCwd = join(setup.agent.root, "server-cwd");
      mkdirSync(serverCwd);
      await using server = await stdio.start({ extensions: [installed], cwd: serverCwd });
      server.mock.enqueue(
        toolCallReply({ name: "bash", arguments: { command: "pwd" }, id: "c1" }),
        textReply("ok"),
      );
      const { threadId, warnings } = await startThread(server.client, server.agent.cwd);
      expect(extensionWarnings(warnings).filter((w) => w.message.includes("failed to load"))).toEqual([]);
      await runTurn(server, threadId, "where am I");
      expect(body(server, 1)).toContain(serverCwd);
    },
    E2E_TIMEOUT * 2,
  );

  /** Runs git in `cwd` (identity given inline: the test machine may have none). */
  async function git(cwd: string, ...args: string[]): Promise<void> {
    const run = Bun.spawn(["git", "-c", "user.name=test", "-c", "user.email=test@example.com", ...args], {
      cwd,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([run.exited, new Response(run.stderr).text()]);
    if (code !== 0) throw new Error(`git ${args.join(" ")} failed: ${stderr}`);
  }

  /** The error a refused request answers with. */
  async function refusal(
    promise: Promise<unknown>,
  ): Promise<{ code: string; message: string; data: unknown }> {
    try {
      await promise;
    } catch (error) {
      const e = error as { code: string; message: string; data: unknown };
      return { code: e.code, message: e.message, data: e.data };
    }
    throw new Error("expected the request to be refused");
  }

  /** IDs of every thread the server lists. */
  async function threadIds(server: E2EServer): Promise<string[]> {
    const { threads } = await server.client.request("thread/list", {});
    return threads.map((t) => t.id).sort();
  }

  proves(
    "dirty-repo-guard.ts",
    "with uncommitted changes thread/fork, /fork and /new are refused and change nothing; once committed they go through",
    async () => {
      await using server = await stdio.start({ extensions: [example("dirty-repo-guard.ts")] });
      const cwd = server.agent.cwd;
      await git(cwd, "init", "-q");
      writeFileSync(join(cwd, "work.txt"), "uncommitted\n");
      const { threadId } = await startThread(server.client, cwd);
      server.mock.enqueue(textReply("noted"));
      await runTurn(server, threadId, "hello");
      const { thread } = await server.client.request("thread/read", { threadId });
      const transcript = readFileSync(thread.path!, "utf8");
      const before = await threadIds(server);
      const seen = recordNotifications(server.client);
      for (const attempt of [
        () => server.client.request("thread/fork", { threadId }),
        () => server.client.request("turn/start", { threadId, text: "/fork" }),
        () => server.client.request("turn/start", { threadId, text: "/new" }),
      ]) {
        const refused = await refusal(attempt());
        expect(refused.code).toBe("invalidParams");
        expect(refused.data).toEqual({ reason: "extensionCancelled" });
        expect(refused.message).toContain(example("dirty-repo-guard.ts"));
      }
      expect(await threadIds(server)).toEqual(before);
      expect(readFileSync(thread.path!, "utf8")).toBe(transcript);
      // no thread was announced or replaced
      expect(seen.filter((n) => n.method === "thread/started" || n.method === "thread/replaced")).toEqual([]);
      // the thread is still the client's: a turn runs on it
      server.mock.enqueue(textReply("still here"));
      expect((await runTurn(server, threadId, "again")).turn.status).toBe("completed");

      await git(cwd, "add", "-A");
      await git(cwd, "commit", "-q", "-m", "work");
      const { thread: fork } = await server.client.request("thread/fork", { threadId });
      expect(fork.forkedFromId).toBe(threadId);
      const replaced = await server.client.request("turn/start", { threadId, text: "/new" });
      expect(replaced.status).toBe("handled");
      expect(replaced.threadId).not.toBe(threadId);
    },
  );

  proves(
    "widget-placement.ts",
    "the client opening the thread gets the widgets session_start set, above and below the editor",
    async () => {
      await using server = await stdio.start({
        extensions: [example("widget-placement.ts")],
        init: { capabilities: { extensionDialogs: true } },
      });
      const seen = recordNotifications(server.client);
      const { threadId } = await startThread(server.client, server.agent.cwd);
      expect(seen.filter((n) => n.method === "extension/widgetChanged")).toEqual([
        {
          method: "extension/widgetChanged",
          params: { threadId, key: "widget-above", lines: ["Above editor widget"], placement: "aboveEditor" },
        },
        {
          method: "extension/widgetChanged",
          params: { threadId, key: "widget-below", lines: ["Below editor widget"], placement: "belowEditor" },
        },
      ]);
    },
  );

  proves(
    "working-message-test.ts",
    "the client opening the thread gets the working message session_start set (its colour kept)",
    async () => {
      await using server = await stdio.start({
        extensions: [example("working-message-test.ts")],
        init: { capabilities: { extensionDialogs: true } },
      });
      const seen = recordNotifications(server.client);
      const { threadId } = await startThread(server.client, server.agent.cwd);
      expect(seen.filter((n) => n.method === "extension/workingMessageChanged")).toEqual([
        {
          method: "extension/workingMessageChanged",
          params: { threadId, message: "\u001b[38;2;155;86;63mWorking... (custom)\u001b[39m" },
        },
      ]);
    },
  );

  proves(
    "titlebar-spinner.ts",
    "a dialog client gets the title: spinner frames while the agent runs, the base title when it ends",
    async () => {
      await using server = await stdio.start({
        extensions: [example("titlebar-spinner.ts")],
        init: { capabilities: { extensionDialogs: true } },
      });
      const { threadId } = await startThread(server.client, server.agent.cwd);
      const titles: string[] = [];
      server.client.onNotification("extension/titleChanged", (params) => {
        if (params.threadId === threadId) titles.push(params.title);
      });
      const base = `π - ${basename(server.agent.cwd)}`;
      const ended = nextNotification<{ title: string }>(
        server.client,
        "extension/titleChanged",
        (p) => p.title === base && titles.length > 1,
      );
      server.mock.enqueue(textReply("done"));
      await runTurn(server, threadId, "hello");
      await ended;
      // agent_start resets to the base title, frames may follow, agent_end puts the base back
      expect(titles[0]).toBe(base);
      expect(titles.at(-1)).toBe(base);
      for (const title of titles) expect(title).toMatch(new RegExp(`^([⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] )?${base}$`));
    },
  );

  proves(
    "working-indicator.ts",
    "a dialog client gets the indicator set at session_start, then each mode /working-indicator picks",
    async () => {
      await using server = await stdio.start({
        extensions: [example("working-indicator.ts")],
        init: { capabilities: { extensionDialogs: true } },
      });
      const indicators: unknown[] = [];
      server.client.onNotification("extension/workingIndicatorChanged", (params) => {
        indicators.push(params.indicator);
      });
      const { threadId } = await startThread(server.client, server.agent.cwd);
      // session_start's spinner, replayed to the client that opened the thread (before the start answers)
      if (indicators.length === 0) {
        await nextNotification<{ threadId: string }>(
          server.client,
          "extension/workingIndicatorChanged",
          (p) => p.threadId === threadId,
        );
      }
      const spinner = indicators[0] as { frames: string[]; intervalMs: number };
      expect(spinner.frames).toHaveLength(10);
      expect(spinner.intervalMs).toBe(80);
      expect(spinner.frames[0]).toContain("⠋");
      for (const mode of ["pulse", "none", "reset"]) {
        expect(
          (await server.client.request("turn/start", { threadId, text: `/working-indicator ${mode}` }))
            .status,
        ).toBe("handled");
      }
      const [pulse, none, reset] = indicators.slice(1) as ({
        frames: string[];
        intervalMs?: number;
      } | null)[];
      expect(pulse?.frames).toHaveLength(4);
      expect(pulse?.intervalMs).toBe(120);
      expect(none).toEqual({ frames: [] });
      expect(reset).toBeNull();
      expect(indicators).toHaveLength(4);
    },
  );

  proves(
    "confirm-destructive.ts",
    "a dialog client is asked before thread/fork and /new; No refuses (nothing changes), Yes goes ahead",
    async () => {
      await using server = await stdio.start({
        extensions: [example("confirm-destructive.ts")],
        init: { capabilities: { extensionDialogs: true } },
      });
      const { threadId } = await startThread(server.client, server.agent.cwd);
      server.mock.enqueue(textReply("noted"));
      await runTurn(server, threadId, "hello");
      const { thread } = await server.client.request("thread/read", { threadId });
      const leaf = sessionLines(thread.path!).at(-1)!.id as string;
      const asked: { kind: string; title: string; options?: string[] }[] = [];
      let agree = false;
      server.client.onRequest("extension/requestDialog", (params) => {
        asked.push({
          kind: params.kind,
          title: params.title,
          ...(params.options ? { options: params.options } : {}),
        });
        if (params.kind === "select") return { value: params.options![agree ? 0 : 1]! };
        return { value: agree };
      });
      const before = await threadIds(server);
      const forkRefused = await refusal(server.client.request("thread/fork", { threadId }));
      expect(forkRefused.data).toEqual({ reason: "extensionCancelled" });
      const newRefused = await refusal(server.client.request("turn/start", { threadId, text: "/new" }));
      expect(newRefused.code).toBe("invalidParams");
      expect(newRefused.data).toEqual({ reason: "extensionCancelled" });
      expect(await threadIds(server)).toEqual(before);
      expect(asked).toEqual([
        {
          kind: "select",
          title: `Fork from entry ${leaf.slice(0, 8)}?`,
          options: ["Yes, create fork", "No, stay in current session"],
        },
        { kind: "confirm", title: "Clear session?" },
      ]);
      agree = true;
      const { thread: fork } = await server.client.request("thread/fork", { threadId });
      expect(fork.forkedFromId).toBe(threadId);
      expect((await server.client.request("turn/start", { threadId, text: "/new" })).status).toBe("handled");
      expect(asked).toHaveLength(4);
    },
  );

  proves(
    "provider-payload.ts",
    "logs each request body and the response's status and headers (after_provider_response)",
    async () => {
      await using server = await stdio.start({ extensions: [example("provider-payload.ts")] });
      // it logs to <process cwd>/.pi/provider-payload.log; the server runs in the project dir
      mkdirSync(join(server.agent.cwd, ".pi"));
      const { threadId } = await startThread(server.client, server.agent.cwd);
      server.mock.enqueue(textReply("logged"));
      await runTurn(server, threadId, "log this request");
      const log = readFileSync(join(server.agent.cwd, ".pi", "provider-payload.log"), "utf8");
      expect(log).toContain("log this request");
      const response = log.split("\n").find((line) => line.startsWith("[200] "));
      expect(response).toBeDefined();
      expect(JSON.parse(response!.slice("[200] ".length))["content-type"]).toContain("text/event-stream");
      // the response line follows the request it answers
      expect(log.indexOf("[200] ")).toBeGreaterThan(log.indexOf("log this request"));
    },
  );

  proves(
    "todo.ts",
    "after thread/tree/navigate its state is rebuilt from the new branch (session_tree)",
    async () => {
      await using server = await stdio.start({ extensions: [example("todo.ts")] });
      const { threadId } = await startThread(server.client, server.agent.cwd);
      server.mock.enqueue(
        toolCallReply({ name: "todo", arguments: { action: "add", text: "buy milk" }, id: "c1" }),
        textReply("added milk"),
        toolCallReply({ name: "todo", arguments: { action: "add", text: "walk dog" }, id: "c2" }),
        textReply("added dog"),
      );
      await runTurn(server, threadId, "remember milk");
      await runTurn(server, threadId, "remember the dog");
      const tree = await server.client.request("thread/tree/read", { threadId });
      const firstAnswer = tree.entries.find((e) => e.kind === "assistant" && e.preview === "added milk")!;
      await server.client.request("thread/tree/navigate", { threadId, entryId: firstAnswer.id });
      server.mock.enqueue(
        toolCallReply({ name: "todo", arguments: { action: "list" }, id: "c3" }),
        textReply("listed"),
      );
      await runTurn(server, threadId, "what is left?");
      const listed = JSON.stringify(server.mock.requests.at(-1)!.body);
      expect(listed).toContain("[ ] #1: buy milk");
      expect(listed).not.toContain("walk dog");
    },
  );

  /** The models a thread's `model/list` shows for one provider. */
  async function listedModels(server: E2EServer, threadId: string, provider: string): Promise<string[]> {
    const { models } = await server.client.request("model/list", { threadId });
    return models
      .filter((m) => m.provider === provider)
      .map((m) => m.id)
      .sort();
  }

  // Both custom-provider examples talk to fixed hosts (api.anthropic.com; gitlab.com for a
  // token), so no turn of theirs can reach the mock: the fixture provider of
  // pi-custom-providers.test.ts proves a turn through a streamSimple of the same shape.
  test("custom-provider-gitlab-duo: its streamSimple provider registers and lists its models", async () => {
    await using server = await stdio.start({ extensions: [example("custom-provider-gitlab-duo")] });
    const { threadId, warnings } = await startThread(server.client, server.agent.cwd);
    expect(extensionWarnings(warnings)).toEqual([]);
    expect(await listedModels(server, threadId, "gitlab-duo")).toEqual([
      "claude-haiku-4-5-20251001",
      "claude-opus-4-5-20251101",
      "claude-sonnet-4-5-20250929",
      "gpt-5-codex",
      "gpt-5-mini-2025-08-07",
      "gpt-5.1-2025-11-13",
    ]);
  });

  test(
    "custom-provider-anthropic: installed, its streamSimple provider registers and lists its models",
    async () => {
      await using setup = await stdio.start({});
      const installed = await installedCopy("custom-provider-anthropic", join(setup.agent.root, "installed"));
      await using server = await stdio.start({ extensions: [installed] });
      const { threadId, warnings } = await startThread(server.client, server.agent.cwd);
      expect(extensionWarnings(warnings)).toEqual([]);
      expect(await listedModels(server, threadId, "custom-anthropic")).toEqual([
        "claude-opus-4-5",
        "claude-sonnet-4-5",
      ]);
    },
    E2E_TIMEOUT * 2,
  );

  test(
    "compat.pi: ~/.pi/agent/extensions/ loads only when the setting opts in",
    async () => {
      const run = async (settings: Record<string, unknown>) => {
        await using server = await stdio.start({ settings });
        const home = join(server.agent.root, "home");
        mkdirSync(join(home, ".pi", "agent", "extensions"), { recursive: true });
        cpSync(example("hello.ts"), join(home, ".pi", "agent", "extensions", "hello.ts"));
        await server.shutdown();
        // a server with HOME set, on the first one's agent dir (whose models.json names the first mock)
        await using withHome = await stdio.start({ env: { ...server.agent.env, HOME: home }, settings });
        server.mock.enqueue(textReply("tools listed"));
        const { threadId } = await startThread(withHome.client, server.agent.cwd);
        await runTurn(withHome, threadId, "which tools?");
        return body(server, 0);
      };
      expect(await run({ compat: { pi: true } })).toContain('"hello"');
      expect(await run({})).not.toContain('"hello"');
    },
    E2E_TIMEOUT * 2,
  );

  test(
    "every example of the folder loads in one thread; none blocks it; the status table matches the doc",
    async () => {
      const names = readdirSync(PI_EXAMPLES)
        .filter((name) => name !== "README.md")
        .sort();
      await using server = await stdio.start({
        extensions: names.map(example),
        settings: { extensionHookTimeoutMs: 2_000 },
      });
      const { threadId, warnings } = await startThread(server.client, server.agent.cwd);
      // the thread still serves a turn with all of them loaded
      server.mock.enqueue(textReply("still serving"));
      // generous: seventy extensions' hooks run in this turn on a busy machine
      const done = nextNotification<TurnCompletedNotification>(
        server.client,
        "turn/completed",
        (p) => p.threadId === threadId,
        120_000,
      );
      await server.client.request("turn/start", { threadId, text: "hello" });
      expect((await done).turn.status).toBe("completed");
      const statuses: ExampleStatus[] = names.map((name) => {
        const note = PI_EXAMPLE_NOTES[name];
        if (!note) throw new Error(`pi-example-notes.ts has no entry for the example ${name}`);
        const problems = warnings.filter(
          (w) =>
            w.source === "extension" &&
            w.path?.startsWith(example(name)) &&
            !w.message.includes("is registered by both") &&
            !(NEEDS_INSTALL.has(name) && w.message.includes("Missing dependency")),
        );
        return { name, status: problems.length > 0 ? "fails" : note.status, note: note.note };
      });
      const table = exampleStatusTable(statuses);
      process.stderr.write(`\n${table}\n`);
      expect(names.length).toBeGreaterThan(60);
      // the table's statuses are the declared ones: a declared failure fails, nothing else does
      expect(statuses.map((s) => `${s.name}: ${s.status}`)).toEqual(
        names.map((name) => `${name}: ${PI_EXAMPLE_NOTES[name]!.status}`),
      );
      // every example marked as working has a test above that proves it
      expect(statuses.filter((s) => s.status === "works").map((s) => s.name)).toEqual([...proved].sort());
      expect(readFileSync(DOC, "utf8")).toContain(table);
    },
    E2E_TIMEOUT * 3,
  );
});
