/**
 * `knightcode --remote`: the terminal agent attached to a real `knightcode app-server
 * --listen` child. The terminal runs in another directory with no agent dir of its own:
 * the sessions, the working directory and the tools are the server's.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { AppServerClient, WebSocketTransport } from "@knightcode/app-server-protocol";
import { type CuttableProxy, startCuttableProxy, textReply, toolCallReply } from "@knightcode/testkit";
import { type MockedAgent, mockedAgent, requestText, runCli } from "./support/cli-run.ts";
import { type ListenerChild, startListenerChild } from "./support/listener.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

/** A directory that is not the project, and an environment that knows no agent dir. */
function elsewhere() {
  const dir = mkdtempSync(join(tmpdir(), "knightcode-remote-client-"));
  const home = mkdtempSync(join(tmpdir(), "knightcode-remote-home-"));
  return {
    dir,
    env: { HOME: home, KNIGHTCODE_CODING_AGENT_DIR: join(home, "agent") },
    [Symbol.dispose]() {
      rmSync(dir, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

describe("knightcode --remote", () => {
  test("a turn in the terminal runs on the server: its cwd, its tools (an approval answered here), its ! commands, its sessions", async () => {
    await using env = await mockedAgent();
    await using listener = await startListenerChild(env);
    using client = elsewhere();
    env.mock.enqueue(
      toolCallReply({ name: "write", arguments: { path: "remote.txt", content: "written on the server\n" } }),
      textReply("Wrote it over the socket."),
    );
    await using tty = new PtySession(["--remote", listener.url], {
      cwd: client.dir,
      env: { ...client.env, KNIGHTCODE_REMOTE_TOKEN: listener.token! },
    });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("write remote.txt");
    // a remote client's new thread asks, as any desktop client's does
    await tty.waitFor("Allow write remote.txt");
    tty.write(KEYS.enter);
    await tty.waitFor("Wrote it over the socket.");
    expect(readFileSync(join(env.agent.cwd, "remote.txt"), "utf8")).toBe("written on the server\n");
    expect(tty.text()).not.toContain(client.dir);
    // a ! command runs there too, in the server's directory
    tty.type("!echo $((6*7))-$(basename $PWD)");
    await tty.waitFor(`42-${basename(env.agent.cwd)}`);
    tty.write(KEYS.ctrlD);
    expect(await tty.exited).toBe(0);
    // -c picks up the session the server kept, from the server's directory
    env.mock.enqueue(textReply("continued"));
    const continued = await runCli(["--remote", listener.url, "-c", "-p", "and again"], {
      cwd: client.dir,
      env: { ...client.env, KNIGHTCODE_REMOTE_TOKEN: listener.token! },
    });
    expect(continued.stderr).toBe("");
    expect(continued.stdout).toBe("continued\n");
    expect(requestText(env.mock.requests.at(-1)!.body)).toContain("write remote.txt");
    expect(listener.server.stderr()).not.toContain(listener.token!);
  }, 60_000);

  test("/undo runs on the server: the checkpoint it took before the turn puts its files back there, and the terminal's directory stays untouched", async () => {
    await using env = await mockedAgent();
    const cwd = env.agent.cwd;
    writeFileSync(join(cwd, "kept.txt"), "original\n");
    for (const args of [
      ["init", "-q"],
      ["add", "."],
      ["commit", "-qm", "init"],
    ]) {
      const run = Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd });
      expect(run.exitCode).toBe(0);
    }
    await using listener = await startListenerChild(env);
    using client = elsewhere();
    env.mock.enqueue(
      toolCallReply(
        {
          name: "edit",
          arguments: { path: "kept.txt", edits: [{ oldText: "original", newText: "changed" }] },
        },
        { name: "write", arguments: { path: "made.txt", content: "made on the server\n" } },
      ),
      textReply("Changed two files."),
    );
    await using tty = new PtySession(["--remote", listener.url, "--approval-mode", "fullAccess"], {
      cwd: client.dir,
      env: { ...client.env, KNIGHTCODE_REMOTE_TOKEN: listener.token! },
    });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("change two files");
    await tty.waitForTurnEnd("Changed two files.");
    expect(readFileSync(join(cwd, "kept.txt"), "utf8")).toBe("changed\n");
    tty.type("/undo");
    const screen = await tty.waitFor("Undid the last turn's file changes (2)");
    expect(screen).toMatch(/restored kept\.txt/);
    expect(screen).toMatch(/removed\s+made\.txt/);
    expect(readFileSync(join(cwd, "kept.txt"), "utf8")).toBe("original\n");
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    // the checkpoints live with the server: the count of turns undone is its count
    tty.type("/undo");
    await tty.waitFor("Nothing more to undo: the turn since the server started was undone already.");
    expect(existsSync(join(client.dir, ".git"))).toBe(false);
    tty.write(KEYS.ctrlD);
    expect(await tty.exited).toBe(0);
  }, 60_000);

  test("print mode over a unix socket needs no token: the socket file's mode is its authentication", async () => {
    await using env = await mockedAgent();
    await using listener = await startListenerChild(env, `unix://${join(env.agent.root, "kc.sock")}`);
    using client = elsewhere();
    env.mock.enqueue(textReply("hello over unix"));
    const result = await runCli(["--remote", listener.url, "-p", "hi"], { cwd: client.dir, env: client.env });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("hello over unix\n");
    expect(result.code).toBe(0);
  }, 60_000);

  test("a missing token, a refused one, and local-only flags fail with the reason", async () => {
    await using env = await mockedAgent();
    await using listener = await startListenerChild(env);
    using client = elsewhere();
    const missing = await runCli(["--remote", listener.url, "-p", "hi"], {
      cwd: client.dir,
      env: client.env,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("needs a token: put it in KNIGHTCODE_REMOTE_TOKEN");
    const wrong = await runCli(["--remote", listener.url, "--remote-token-env", "MY_TOKEN", "-p", "hi"], {
      cwd: client.dir,
      env: { ...client.env, MY_TOKEN: "definitely-not-the-token" },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("the server refused the token in MY_TOKEN");
    expect(wrong.stderr).not.toContain("definitely-not-the-token");
    const clear = await runCli(["--remote", "ws://192.0.2.1:4500", "-p", "hi"], {
      cwd: client.dir,
      env: { ...client.env, KNIGHTCODE_REMOTE_TOKEN: "a-token-a-token-a-token" },
    });
    expect(clear.code).toBe(1);
    expect(clear.stderr).toContain("refusing to send the token in clear text");
    const local = await runCli(["--remote", listener.url, "--session-dir", "x", "-p", "hi"], {
      cwd: client.dir,
    });
    expect(local.code).toBe(2);
    expect(local.stderr).toContain("--remote cannot be combined with --session-dir");
    expect(env.mock.requests).toEqual([]);
  }, 60_000);
});

/** A 24-word reply that pauses after its first deltas until `resume` resolves. */
function enqueuePausedReply(env: MockedAgent, word: string) {
  const resume = Promise.withResolvers<void>();
  const words = Array.from({ length: 24 }, (_, i) => `${word}${i}`);
  env.mock.enqueue({ ...textReply(words.join(" "), 24), pauseAfterEvents: 4, resumeWhen: resume.promise });
  return { words, resume };
}

/** The terminal attached to the listener through the proxy (so the test can cut it). */
function attachThrough(proxy: CuttableProxy, listener: ListenerChild, client: ReturnType<typeof elsewhere>) {
  return new PtySession(["--remote", `ws://127.0.0.1:${proxy.port}`, "--approval-mode", "fullAccess"], {
    cwd: client.dir,
    env: { ...client.env, KNIGHTCODE_REMOTE_TOKEN: listener.token! },
  });
}

describe("knightcode --remote across a dropped connection", () => {
  test("the connection is cut mid-reply: the footer says it is reconnecting, then reconnected, and the reply finishes on screen, whole", async () => {
    await using env = await mockedAgent();
    await using listener = await startListenerChild(env);
    const proxy = await startCuttableProxy(Number(new URL(listener.url.replace(/^ws/, "http")).port));
    using client = elsewhere();
    try {
      const { words, resume } = enqueuePausedReply(env, "part");
      await using tty = attachThrough(proxy, listener, client);
      await tty.waitFor("mock-completions/mock-model");
      tty.type("stream something");
      await tty.waitFor("part0");
      // held in its reconnect loop until the note was seen
      proxy.refuse(true);
      proxy.cut();
      resume.resolve();
      await tty.waitFor(/connection lost: reconnecting… attempt [2-9]/);
      proxy.refuse(false);
      await tty.waitFor("reconnected; the thread goes on where it was");
      const screen = await tty.waitFor("part23");
      // the reply wraps on screen: compare it with its line breaks as spaces; each part
      // once and in order means nothing was replayed twice and nothing was lost
      expect(screen.replace(/\s+/g, " ")).toContain(words.join(" "));
      expect(screen.split("part23").length).toBe(2);
      expect(screen).not.toContain("connection lost");
      expect(proxy.accepted).toBe(2);
      tty.write(KEYS.ctrlD);
      expect(await tty.exited).toBe(0);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  test("a gap longer than the server keeps: the thread is redrawn from the resume snapshot, the whole reply once", async () => {
    await using env = await mockedAgent();
    // two notifications of replay: the reply's remaining deltas outrun it
    await using listener = await startListenerChild(env, undefined, ["--replay-notifications", "2"]);
    const proxy = await startCuttableProxy(Number(new URL(listener.url.replace(/^ws/, "http")).port));
    using client = elsewhere();
    // a second client, straight to the server, sees the turn end while the terminal is away
    const watcher = new AppServerClient(new WebSocketTransport(listener.url, { token: listener.token! }));
    try {
      await watcher.connect();
      await watcher.initialize({ clientInfo: { name: "watcher", version: "1" } });
      const finished = Promise.withResolvers<void>();
      watcher.onNotification("thread/turn/completed", () => finished.resolve());
      const { words, resume } = enqueuePausedReply(env, "chunk");
      await using tty = attachThrough(proxy, listener, client);
      await tty.waitFor("mock-completions/mock-model");
      tty.type("stream something");
      await tty.waitFor("chunk0");
      proxy.refuse(true);
      proxy.cut();
      resume.resolve();
      await tty.waitFor("reconnecting…");
      await finished.promise;
      expect(tty.text()).not.toContain("chunk23");
      proxy.refuse(false);
      const screen = await tty.waitFor("redrawn from its snapshot");
      expect(screen.replace(/\s+/g, " ")).toContain(words.join(" "));
      // the deltas sent while away were never replayed: only the redraw can show the end
      expect(screen.split("chunk23").length).toBe(2);
      tty.write(KEYS.ctrlD);
      expect(await tty.exited).toBe(0);
    } finally {
      await watcher.close();
      await proxy.close();
    }
  }, 60_000);
});
