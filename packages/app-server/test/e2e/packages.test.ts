/**
 * `knightcode install | list | remove` as a real CLI child, and installed packages
 * loaded by a real `knightcode app-server` child at thread load: a small real package
 * from the npm registry, a tarball the test packs, and a project's package installed on
 * the first trusted load.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setProjectTrust } from "@knightcode/config";
import { knightcodeArgv, textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, type E2EServer, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";

const stdio = TARGETS.find((t) => t.name === "stdio")!;

/** Runs the knightcode CLI with the server's agent dir. */
async function cli(server: E2EServer, args: string[], cwd = server.agent.cwd) {
  const child = Bun.spawn(knightcodeArgv(args), {
    cwd,
    env: { ...process.env, ...server.agent.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

/** Packs a package with one extension (a `greet_pkg` tool) named by its `pi` manifest; returns the tarball. */
async function packGreeter(dir: string): Promise<string> {
  const pkg = join(dir, "greeter");
  mkdirSync(join(pkg, "extensions"), { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "kc-test-greeter",
      version: "1.2.3",
      type: "module",
      keywords: ["pi-package"],
      // never runs: installs pass --ignore-scripts unless --allow-scripts is given
      scripts: { postinstall: "node -e \"require('fs').writeFileSync('SCRIPT_RAN', '')\"" },
      pi: { extensions: ["./extensions"] },
      peerDependencies: { "@mariozechner/pi-coding-agent": "*", typebox: "*" },
    }),
  );
  writeFileSync(
    join(pkg, "extensions", "greet.ts"),
    `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "greet_pkg",
    label: "Greet",
    description: "Greets from an installed package",
    parameters: Type.Object({ name: Type.String() }),
    async execute(_id, params) {
      return { content: [{ type: "text", text: \`Packaged hello, \${params.name}!\` }], details: {} };
    },
  });
}
`,
  );
  mkdirSync(join(pkg, "skills", "greeting"), { recursive: true });
  writeFileSync(
    join(pkg, "skills", "greeting", "SKILL.md"),
    "---\nname: greeting\ndescription: How to greet\n---\nGREETING-SKILL-BODY\n",
  );
  mkdirSync(join(pkg, "prompts"), { recursive: true });
  writeFileSync(
    join(pkg, "prompts", "hello-prompt.md"),
    "---\ndescription: Says hello\n---\nHELLO-PROMPT-BODY\n",
  );
  const pack = Bun.spawn(["npm", "pack", "--silent", "--pack-destination", dir], {
    cwd: pkg,
    stdout: "pipe",
  });
  const name = (await new Response(pack.stdout).text()).trim();
  expect(await pack.exited).toBe(0);
  return join(dir, name);
}

function settingsOf(path: string): { packages?: unknown[] } {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** A thread on the server whose first model request shows the tools; runs `greet_pkg` when offered. */
async function greetThroughThread(server: E2EServer, mockOf: E2EServer, cwd: string) {
  mockOf.mock.enqueue(
    toolCallReply({ name: "greet_pkg", arguments: { name: "Ada" }, id: "c1" }),
    textReply("ok"),
  );
  const { thread, warnings } = await server.client.request("thread/start", {
    cwd,
    approvalMode: "fullAccess",
    model: MOCK_MODEL,
  });
  const done = nextNotification(
    server.client,
    "turn/completed",
    (p: { threadId: string }) => p.threadId === thread.id,
  );
  await server.client.request("turn/start", { threadId: thread.id, text: "greet Ada" });
  await done;
  return { threadId: thread.id, warnings, second: JSON.stringify(mockOf.mock.requests.at(-1)!.body) };
}

describe("knightcode install, list, remove", () => {
  test(
    "npm: from the registry installs into the agent dir without scripts, is recorded, listed and removed",
    async () => {
      await using server = await stdio.start({});
      const installed = await cli(server, ["install", "npm:ms@2.1.3"]);
      expect(installed.stderr).toBe("");
      expect(installed.code).toBe(0);
      const dir = join(server.agent.agentDir, "packages", "npm", "node_modules", "ms");
      expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version).toBe("2.1.3");
      expect(settingsOf(join(server.agent.agentDir, "settings.json")).packages).toEqual(["npm:ms@2.1.3"]);
      const listed = await cli(server, ["list"]);
      expect(listed.stdout).toContain(`user\tnpm:ms@2.1.3\t2.1.3 ${dir}`);
      const removed = await cli(server, ["remove", "npm:ms"]);
      expect(removed.code).toBe(0);
      expect(existsSync(dir)).toBe(false);
      expect(settingsOf(join(server.agent.agentDir, "settings.json")).packages).toEqual([]);
      expect((await cli(server, ["list"])).stdout).toBe("No packages installed.\n");
      const again = await cli(server, ["remove", "npm:ms"]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain("npm:ms is not installed");
    },
    E2E_TIMEOUT * 2,
  );

  test(
    "a local tarball installs as an npm package; the next thread loads its extension from the manifest",
    async () => {
      await using setup = await stdio.start({});
      const tarball = await packGreeter(setup.agent.root);
      const installed = await cli(setup, ["install", tarball]);
      expect(installed.code).toBe(0);
      expect(
        existsSync(join(setup.agent.agentDir, "packages", "npm", "node_modules", "kc-test-greeter")),
      ).toBe(true);
      expect((await cli(setup, ["list"])).stdout).toContain(`user\t${tarball}\t1.2.3`);
      // a server started now reads the recorded package at thread load
      await setup.shutdown();
      await using server = await stdio.start({ env: setup.agent.env });
      const { threadId, warnings, second } = await greetThroughThread(server, setup, setup.agent.cwd);
      expect(warnings.filter((w) => w.source === "extension")).toEqual([]);
      expect(second).toContain("Packaged hello, Ada!");
      // its convention folders: the skill and the prompt template are offered
      const { commands } = await server.client.request("command/list", { threadId });
      expect(commands.map((c) => c.name)).toEqual(expect.arrayContaining(["skill:greeting", "hello-prompt"]));
    },
    E2E_TIMEOUT * 2,
  );

  test(
    "a trusted project's package missing on disk is installed on thread load; an untrusted project's is not",
    async () => {
      await using setup = await stdio.start({});
      const tarball = await packGreeter(setup.agent.root);
      const project = setup.agent.cwd;
      mkdirSync(join(project, ".knightcode"), { recursive: true });
      writeFileSync(join(project, ".knightcode", "settings.json"), JSON.stringify({ packages: [tarball] }));
      const installedDir = join(project, ".knightcode", "packages", "npm", "node_modules", "kc-test-greeter");
      await setup.shutdown();
      {
        await using untrusted = await stdio.start({ env: setup.agent.env });
        await setProjectTrust(setup.agent.agentDir, project, false);
        const { second } = await greetThroughThread(untrusted, setup, project);
        expect(second).not.toContain("Packaged hello");
        expect(existsSync(installedDir)).toBe(false);
      }
      await setProjectTrust(setup.agent.agentDir, project, true);
      await using trusted = await stdio.start({ env: setup.agent.env });
      const { warnings, second } = await greetThroughThread(trusted, setup, project);
      expect(warnings.filter((w) => w.source === "extension")).toEqual([]);
      expect(existsSync(installedDir)).toBe(true);
      expect(second).toContain("Packaged hello, Ada!");
    },
    E2E_TIMEOUT * 2,
  );

  test(
    "update skips a pinned package and reinstalls one it is asked for at the latest version",
    async () => {
      await using server = await stdio.start({});
      expect((await cli(server, ["install", "npm:ms@2.1.2"])).code).toBe(0);
      const manifest = join(server.agent.agentDir, "packages", "npm", "node_modules", "ms", "package.json");
      expect(JSON.parse(readFileSync(manifest, "utf8")).version).toBe("2.1.2");
      expect((await cli(server, ["update"])).stdout).toBe("Nothing to update.\n");
      const named = await cli(server, ["update", "npm:ms"]);
      expect(named.stdout).toBe("Updated npm:ms@2.1.2\n");
      expect(JSON.parse(readFileSync(manifest, "utf8")).version).not.toBe("2.1.2");
    },
    E2E_TIMEOUT,
  );

  test(
    "git: a repository is cloned into the agent dir and its extension loads",
    async () => {
      await using setup = await stdio.start({});
      const repo = join(setup.agent.root, "repo");
      mkdirSync(join(repo, "extensions"), { recursive: true });
      writeFileSync(join(repo, "package.json"), JSON.stringify({ name: "git-greeter", version: "0.0.1" }));
      writeFileSync(
        join(repo, "extensions", "greet.ts"),
        `export default function (pi: any) {
  pi.registerTool({
    name: "greet_pkg",
    description: "Greets from git",
    parameters: { type: "object", properties: { name: { type: "string" } } },
    async execute(_id: string, params: { name: string }) {
      return { content: [{ type: "text", text: \`Packaged hello, \${params.name}!\` }] };
    },
  });
}
`,
      );
      const git = (...args: string[]) =>
        Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo }).exitCode;
      expect(git("init", "-q")).toBe(0);
      expect(git("add", ".")).toBe(0);
      expect(git("commit", "-qm", "greeter")).toBe(0);
      const installed = await cli(setup, ["install", `git:file://${repo}`]);
      expect(installed.stderr).toBe("");
      expect(
        existsSync(join(setup.agent.agentDir, "packages", "git", repo.slice(1), "extensions", "greet.ts")),
      ).toBe(true);
      await setup.shutdown();
      await using server = await stdio.start({ env: setup.agent.env });
      const { second } = await greetThroughThread(server, setup, setup.agent.cwd);
      expect(second).toContain("Packaged hello, Ada!");
    },
    E2E_TIMEOUT * 2,
  );

  test(
    "install -l in an untrusted project is refused and installs nothing; a bad source is refused",
    async () => {
      await using server = await stdio.start({});
      const refused = await cli(server, ["install", "-l", "npm:ms@2.1.3"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("is not trusted");
      expect(existsSync(join(server.agent.cwd, ".knightcode", "packages"))).toBe(false);
      const bad = await cli(server, ["install", "npm:Not A Name"]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("Not an npm package name");
      expect(existsSync(join(server.agent.agentDir, "settings.json"))).toBe(false);
    },
    E2E_TIMEOUT,
  );
});
