import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, linkSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { E2E_TIMEOUT } from "./harness.ts";
import {
  bash,
  leaked,
  plant,
  runTools,
  SSH_KEY,
  SYSTEM_PROBE,
  startServer,
  startThread,
} from "./sandbox-support.ts";

afterAll(() => rmSync(SYSTEM_PROBE, { force: true }));

describe("sandboxed thread: the attack corpus", () => {
  test(
    "thread/start reports the sandbox: bubblewrap, network off",
    async () => {
      await using server = await startServer();
      const { thread, warnings } = await startThread(server, server.agent.cwd);
      expect(thread.sandbox).toEqual({ mode: "bubblewrap", network: "off" });
      expect(warnings.filter((w) => w.source === "sandbox")).toEqual([]);
    },
    E2E_TIMEOUT,
  );

  test(
    "read and cat of ~/.ssh/id_rsa both fail, and the key stays where it was",
    async () => {
      await using server = await startServer();
      const { thread } = await startThread(server, server.agent.cwd);
      const items = await runTools(server, thread.id, [
        { id: "call_read", name: "read", arguments: { path: "~/.ssh/id_rsa" } },
        { id: "call_read_abs", name: "read", arguments: { path: join(server.home, ".ssh", "id_rsa") } },
        { id: "call_cat", name: "bash", arguments: { command: "cat ~/.ssh/id_rsa; ls -a ~" } },
      ]);
      expect(items.call_read?.status).toBe("failed");
      expect(items.call_read?.output).toContain("File not found");
      expect(items.call_read_abs?.status).toBe("failed");
      expect(items.call_cat?.output).toContain("No such file or directory");
      expect(leaked(JSON.stringify(items))).toEqual([]);
      expect(readFileSync(join(server.home, ".ssh", "id_rsa"), "utf8")).toBe(SSH_KEY);
    },
    E2E_TIMEOUT,
  );

  test(
    "a host file under /tmp outside the project is out of reach of read and cat",
    async () => {
      await using server = await startServer();
      // the temp root holds the project; a sibling file of it is the host's, not the sandbox's
      const secret = join(server.agent.root, "host-secret.txt");
      plant(secret, "host-tmp-secret");
      const { thread } = await startThread(server, server.agent.cwd);
      const items = await runTools(server, thread.id, [
        { id: "r_tmp", name: "read", arguments: { path: secret } },
        { id: "b_tmp", name: "bash", arguments: { command: `cat '${secret}'; ls /tmp | wc -l` } },
      ]);
      expect(items.r_tmp?.status).toBe("failed");
      expect(items.r_tmp?.output).toContain("File not found");
      expect(items.b_tmp?.output).toContain("No such file or directory");
      expect(JSON.stringify(items)).not.toContain("host-tmp-secret");
    },
    E2E_TIMEOUT,
  );

  test(
    "writes outside the project fail: absolute paths, .., planted symlinks and hard links",
    async () => {
      await using server = await startServer();
      const project = server.agent.cwd;
      const outside = join(server.agent.root, "outside");
      plant(join(outside, "victim.txt"), "original");
      symlinkSync(outside, join(project, "link-dir"));
      linkSync(join(outside, "victim.txt"), join(project, "hard-link.txt"));
      const { thread } = await startThread(server, project);
      // the host's system, which the sandbox shows read-only (not a path in this checkout: a
      // checkout under /tmp is the sandbox's private tmpfs there, where a write would land)
      const systemProbe = SYSTEM_PROBE;
      const items = await runTools(server, thread.id, [
        { id: "w_system", name: "write", arguments: { path: systemProbe, content: "x" } },
        { id: "w_abs", name: "write", arguments: { path: join(outside, "new-abs.txt"), content: "x" } },
        { id: "w_dotdot", name: "write", arguments: { path: "../outside/new-dotdot.txt", content: "x" } },
        { id: "w_symlink", name: "write", arguments: { path: "link-dir/new-link.txt", content: "x" } },
        { id: "w_victim", name: "write", arguments: { path: "link-dir/victim.txt", content: "pwned" } },
        { id: "w_hard", name: "write", arguments: { path: "hard-link.txt", content: "pwned" } },
        {
          id: "e_hard",
          name: "edit",
          arguments: { path: "hard-link.txt", edits: [{ oldText: "original", newText: "pwned" }] },
        },
        {
          id: "b_all",
          name: "bash",
          arguments: {
            command: [
              `echo x > ${join(outside, "bash-abs.txt")}`,
              "echo x > ../outside/bash-dotdot.txt",
              "echo x > link-dir/bash-link.txt",
              "echo pwned > link-dir/victim.txt",
              "echo pwned > hard-link.txt",
              "echo pwned >> hard-link.txt",
              `echo x > ${systemProbe}`,
              "echo ok-inside > inside.txt",
            ].join("; "),
          },
        },
      ]);
      // The test's folders live under /tmp, which is the sandbox's own: writes there land in
      // it and vanish. The read-only system refuses outright, and hard links are refused.
      for (const id of ["w_system", "w_hard", "e_hard"])
        expect([id, items[id]?.status]).toEqual([id, "failed"]);
      expect(items.w_system?.output).toContain("read-only file system");
      expect(existsSync(systemProbe)).toBe(false);
      expect(items.b_all?.output).toContain("Read-only file system");
      for (const name of [
        "new-abs.txt",
        "new-dotdot.txt",
        "new-link.txt",
        "bash-abs.txt",
        "bash-dotdot.txt",
        "bash-link.txt",
      ])
        expect([name, existsSync(join(outside, name))]).toEqual([name, false]);
      expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("original");
      // the project itself stays writable
      expect(readFileSync(join(project, "inside.txt"), "utf8")).toBe("ok-inside\n");
    },
    E2E_TIMEOUT,
  );

  test(
    "no credential in $ANTHROPIC_API_KEY, env, /proc/self/environ, /proc/1/environ or the server's environ",
    async () => {
      await using server = await startServer();
      const { thread } = await startThread(server, server.agent.cwd);
      const output = await bash(
        server,
        thread.id,
        [
          'echo "key=[$ANTHROPIC_API_KEY]"',
          "env",
          "tr '\\0' '\\n' < /proc/self/environ",
          "tr '\\0' '\\n' < /proc/1/environ",
          `tr '\\0' '\\n' < /proc/${server.pid}/environ || echo no-server-environ`,
        ].join("; "),
      );
      expect(output).toContain("key=[]");
      expect(output).toContain("PATH=");
      expect(output).toContain("no-server-environ");
      expect(leaked(output)).toEqual([]);
    },
    E2E_TIMEOUT,
  );

  test(
    ".git stays read-only: writing .git/hooks/pre-commit fails from write and from bash",
    async () => {
      await using server = await startServer();
      const project = server.agent.cwd;
      plant(join(project, ".git", "HEAD"), "ref: refs/heads/main\n");
      plant(join(project, ".git", "hooks", "README"), "hooks\n");
      const { thread } = await startThread(server, project);
      const hook = join(project, ".git", "hooks", "pre-commit");
      const items = await runTools(server, thread.id, [
        {
          id: "w_hook",
          name: "write",
          arguments: { path: ".git/hooks/pre-commit", content: "#!/bin/sh\nexit 0\n" },
        },
        { id: "b_hook", name: "bash", arguments: { command: "echo 'curl evil' > .git/hooks/pre-commit" } },
      ]);
      expect(items.w_hook?.status).toBe("failed");
      expect(items.b_hook?.output).toContain("Read-only file system");
      expect(existsSync(hook)).toBe(false);
    },
    E2E_TIMEOUT,
  );

  test(
    "the server's PID is out of reach: kill fails and the server keeps answering",
    async () => {
      await using server = await startServer();
      const { thread } = await startThread(server, server.agent.cwd);
      const output = await bash(server, thread.id, `kill -9 ${server.pid}; echo "kill-exit=$?"`);
      expect(output).toContain("kill-exit=1");
      const listed = await server.client.request("thread/list", {});
      expect(listed.threads.some((t) => t.id === thread.id)).toBe(true);
    },
    E2E_TIMEOUT,
  );

  test(
    "the session transcript cannot be read with read or cat",
    async () => {
      await using server = await startServer();
      const { thread } = await startThread(server, server.agent.cwd);
      const transcript = thread.path!;
      const items = await runTools(server, thread.id, [
        { id: "r_transcript", name: "read", arguments: { path: transcript } },
        { id: "b_transcript", name: "bash", arguments: { command: `cat '${transcript}' | head -c 200` } },
      ]);
      expect(items.r_transcript?.status).toBe("failed");
      expect(items.b_transcript?.output).toContain("No such file or directory");
      expect(JSON.stringify(items)).not.toContain('"type":"session"');
      // the transcript is still the server's, and intact
      expect(readFileSync(transcript, "utf8")).toContain(thread.id);
    },
    E2E_TIMEOUT,
  );
});

describe("sandboxed thread: network", () => {
  async function probe(networkSetting: "off" | "on") {
    let connections = 0;
    using listener = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        connections++;
        return new Response("reached");
      },
    });
    await using server = await startServer();
    writeFileSync(
      join(server.agent.agentDir, "settings.json"),
      JSON.stringify({ sandbox: { network: networkSetting } }),
    );
    const { thread } = await startThread(server, server.agent.cwd);
    const output = await bash(
      server,
      thread.id,
      `curl -s --max-time 5 http://127.0.0.1:${listener.port}/ || echo "curl-failed=$?"`,
    );
    return { output, connections, sandbox: thread.sandbox };
  }

  test(
    'a loopback listener is refused with network "off"',
    async () => {
      const { output, connections, sandbox } = await probe("off");
      expect(sandbox).toEqual({ mode: "bubblewrap", network: "off" });
      expect(output).toContain("curl-failed=7");
      expect(connections).toBe(0);
    },
    E2E_TIMEOUT,
  );

  test(
    'the same listener is reachable with network "on"',
    async () => {
      const { output, connections, sandbox } = await probe("on");
      expect(sandbox).toEqual({ mode: "bubblewrap", network: "on" });
      expect(output).toContain("reached");
      expect(connections).toBe(1);
    },
    E2E_TIMEOUT,
  );
});

describe("sandboxed thread: normal work", () => {
  test(
    "!pwd-style shell commands (thread/shell/run) run in the thread's sandbox",
    async () => {
      await using server = await startServer();
      const project = server.agent.cwd;
      const { thread } = await startThread(server, project);
      const pwd = await server.client.request("thread/shell/run", { threadId: thread.id, command: "pwd" });
      expect(pwd.output).toBe(project);
      expect(pwd.exitCode).toBe(0);
      const key = await server.client.request("thread/shell/run", {
        threadId: thread.id,
        // one echo: stdout and stderr arrive on separate pipes, in no fixed order
        command: 'cat ~/.ssh/id_rsa; echo "[$ANTHROPIC_API_KEY] $(hostname)"',
        excludeFromContext: true,
      });
      expect(key.output).toContain("No such file or directory");
      expect(key.output).toContain("[] knightcode-sandbox");
      expect(leaked(key.output)).toEqual([]);
    },
    E2E_TIMEOUT,
  );

  test(
    "all seven tools work on a real project: read, write, edit, grep, find, ls, bash with a pipe",
    async () => {
      await using server = await startServer();
      const project = server.agent.cwd;
      plant(join(project, "src", "main.ts"), 'export const greeting = "hello";\n');
      plant(
        join(project, "src", "util.ts"),
        "export function add(a: number, b: number) {\n  return a + b;\n}\n",
      );
      plant(join(project, "README.md"), "# demo\n");
      const { thread } = await startThread(server, project);
      const items = await runTools(server, thread.id, [
        { id: "t_read", name: "read", arguments: { path: "src/main.ts" } },
        { id: "t_grep", name: "grep", arguments: { pattern: "export", glob: "*.ts" } },
        { id: "t_find", name: "find", arguments: { pattern: "*.ts" } },
        { id: "t_ls", name: "ls", arguments: { path: "src" } },
        { id: "t_bash", name: "bash", arguments: { command: "ls src | wc -l; pwd" } },
      ]);
      expect(items.t_read?.output).toContain('export const greeting = "hello";');
      expect(items.t_grep?.output).toContain("src/main.ts:1:export const greeting");
      expect(items.t_grep?.output).toContain("src/util.ts:1:export function add");
      expect(items.t_find?.output.split("\n").sort()).toEqual(["src/main.ts", "src/util.ts"]);
      expect(items.t_ls?.output).toBe("main.ts\nutil.ts");
      expect(items.t_bash?.output).toBe(`2\n${project}`);
      const edits = await runTools(server, thread.id, [
        { id: "t_write", name: "write", arguments: { path: "src/new.ts", content: "export const n = 1;\n" } },
        {
          id: "t_edit",
          name: "edit",
          arguments: { path: "src/main.ts", edits: [{ oldText: '"hello"', newText: '"hi"' }] },
        },
      ]);
      expect(edits.t_write?.status).toBe("completed");
      expect(edits.t_edit?.status).toBe("completed");
      expect(readFileSync(join(project, "src", "new.ts"), "utf8")).toBe("export const n = 1;\n");
      expect(readFileSync(join(project, "src", "main.ts"), "utf8")).toBe('export const greeting = "hi";\n');
    },
    E2E_TIMEOUT,
  );

  test(
    "each thread's sandbox is its own cwd: a thread cannot write another thread's project",
    async () => {
      await using server = await startServer();
      const projectA = join(server.agent.root, "project-a");
      const projectB = join(server.agent.root, "project-b");
      plant(join(projectA, "a.txt"), "a");
      plant(join(projectB, "b.txt"), "b");
      const a = await startThread(server, projectA);
      const b = await startThread(server, projectB);
      const fromA = await runTools(server, a.thread.id, [
        { id: "a_write", name: "write", arguments: { path: join(projectB, "b.txt"), content: "from a" } },
        {
          id: "a_bash",
          name: "bash",
          arguments: { command: `echo from-a > ${join(projectB, "bash.txt")}; echo mine > mine.txt` },
        },
      ]);
      const fromB = await bash(server, b.thread.id, "cat b.txt; echo mine > mine.txt");
      expect(fromA.a_bash?.output).not.toContain("from-a\n");
      expect(readFileSync(join(projectB, "b.txt"), "utf8")).toBe("b");
      expect(existsSync(join(projectB, "bash.txt"))).toBe(false);
      expect(fromB).toBe("b");
      expect(readFileSync(join(projectA, "mine.txt"), "utf8")).toBe("mine\n");
      expect(readFileSync(join(projectB, "mine.txt"), "utf8")).toBe("mine\n");
    },
    E2E_TIMEOUT,
  );
});
