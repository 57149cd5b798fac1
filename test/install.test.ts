/**
 * `scripts/install.sh` as a user runs it: it builds the compiled binary and installs it
 * under a prefix, and the installed `knightcode` works on its own, away from the
 * checkout: `--version`, `demo`, and `app-server` and `acp` completing a turn on the
 * offline demo model over real pipes. In CI this runs in a fresh clone, so it is the clean-clone case.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppServerClient, StreamTransport } from "@knightcode/app-server-protocol";
import { collectOutput } from "@knightcode/testkit";

const ROOT = join(import.meta.dir, "..");
const INSTALL = join(ROOT, "scripts", "install.sh");
const { version } = JSON.parse(readFileSync(join(ROOT, "apps", "cli", "package.json"), "utf8"));

let scratch: string;
let prefix: string;
let installLog: { code: number; stderr: string };

const CREDENTIALS = new Set(["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]);

/**
 * An environment with an empty HOME and no credentials: what a new user has. The keys are
 * left out rather than set empty, so a `.env` file could still supply them if it were read.
 */
function userEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("KNIGHTCODE_") && !CREDENTIALS.has(key)) env[key] = value;
  }
  return { ...env, HOME: home, NO_COLOR: "1" };
}

async function runInstall(args: string[], home: string) {
  const child = Bun.spawn(["bash", INSTALL, ...args], {
    env: userEnv(home),
    stdout: "pipe",
    stderr: "pipe",
  });
  const { stdout, stderr, code } = await collectOutput(child);
  return { stdout, stderr, code };
}

function freshHome(name: string): string {
  const home = join(scratch, name);
  mkdirSync(home, { recursive: true });
  return home;
}

beforeAll(async () => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), "knightcode-install-")));
  prefix = join(scratch, "prefix");
  installLog = await runInstall(["--prefix", prefix], freshHome("installer-home"));
}, 120_000);

// two 120 MB binaries; removing them can take a while on a busy disk
afterAll(() => rmSync(scratch, { recursive: true, force: true }), 120_000);

describe("scripts/install.sh", () => {
  test("--prefix DIR installs an executable DIR/bin/knightcode and says the bin dir is not on PATH", () => {
    expect([installLog.code, installLog.stderr]).toEqual([0, expect.stringContaining("installed")]);
    const binary = join(prefix, "bin", "knightcode");
    expect(statSync(binary).mode & 0o111).toBe(0o111);
    expect(installLog.stderr).toContain(`install: ${join(prefix, "bin")} is not on your PATH`);
  });

  test("without --prefix it installs into ~/.local/bin, silent about PATH when that is on it", async () => {
    const home = freshHome("default-home");
    const bin = join(home, ".local", "bin");
    const child = Bun.spawn(["bash", INSTALL], {
      env: { ...userEnv(home), PATH: `${bin}:${process.env.PATH}` },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    expect([code, stderr]).toEqual([0, expect.stringContaining(`installed ${join(bin, "knightcode")}`)]);
    expect(stderr).not.toContain("not on your PATH");
  }, 120_000);

  for (const [args, message] of [
    [["--prefix"], "install: --prefix needs a directory"],
    [["--prefix="], "install: --prefix needs a directory"],
    [["--frobnicate"], "install: unknown argument '--frobnicate'"],
  ] as const) {
    test(`${args.join(" ")} exits 2 with a clear message and installs nothing`, async () => {
      const home = freshHome(`bad-${args.join("").replace(/\W/g, "")}`);
      const { code, stderr } = await runInstall([...args], home);
      expect([code, stderr.split("\n")[0]]).toEqual([2, message]);
      expect(existsSync(join(home, ".local"))).toBe(false);
    });
  }
});

describe("the installed knightcode", () => {
  const binary = () => join(prefix, "bin", "knightcode");

  /** The installed binary's `app-server` on pipes in `cwd`, connected and initialized as `clientName`. */
  async function startInstalledServer(
    args: string[],
    cwd: string,
    env: Record<string, string>,
    clientName: string,
  ) {
    const child = Bun.spawn([binary(), ...args], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const client = new AppServerClient(
      new StreamTransport({ readable: child.stdout, writable: child.stdin }),
    );
    await client.connect();
    const init = await client.initialize({ clientInfo: { name: clientName } });
    return { child, client, init };
  }

  test("--version prints the version from apps/cli/package.json", async () => {
    const child = Bun.spawn([binary(), "--version"], { cwd: scratch, stdout: "pipe", stderr: "pipe" });
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect([code, stdout]).toEqual([0, `knightcode ${version}\n`]);
  });

  test("demo runs its scripted conversation on the offline model", async () => {
    const home = freshHome("demo-home");
    const child = Bun.spawn([binary(), "demo"], {
      cwd: home,
      env: userEnv(home),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(code).toBe(0);
    expect(stdout).toContain("model demo/demo, approval mode ask");
    expect(stdout).toContain("✓ write completed");
    expect(stdout).toContain("the server shut down with exit code 0");
  }, 60_000);

  test("-p (print mode) answers one prompt on stdout on the demo model", async () => {
    const home = freshHome("print-home");
    const child = Bun.spawn([binary(), "-p", "hello there"], {
      cwd: home,
      env: userEnv(home),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect([code, stdout]).toEqual([0, expect.stringContaining('You said: "hello there"')]);
  }, 60_000);

  test("-p --sandbox keeps /tmp and the home private: a read of either fails, a read in the project works", async () => {
    const home = freshHome("print-sandbox-home");
    const cwd = join(home, "project");
    mkdirSync(cwd);
    writeFileSync(join(cwd, "notes.txt"), "project-notes\n");
    // the scratch folder is under /tmp: one file beside the home, one in it
    const inTmp = join(scratch, "tmp-secret.txt");
    const inHome = join(home, "home-secret.txt");
    writeFileSync(inTmp, "tmp-secret-text\n");
    writeFileSync(inHome, "home-secret-text\n");
    const print = async (prompt: string) => {
      const child = Bun.spawn([binary(), "-p", "--sandbox", prompt], {
        cwd,
        env: userEnv(home),
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      return { code, stdout };
    };
    expect(await print(`read ${inTmp}`)).toEqual({
      code: 0,
      stdout: expect.stringContaining("File not found"),
    });
    expect(await print(`read ${inHome}`)).toEqual({
      code: 0,
      stdout: expect.stringContaining("File not found"),
    });
    expect(await print("read notes.txt")).toEqual({
      code: 0,
      stdout: expect.stringContaining("project-notes"),
    });
  }, 60_000);

  test("acp answers the Agent Client Protocol's initialize", async () => {
    const home = freshHome("acp-home");
    const child = Bun.spawn([binary(), "acp"], {
      cwd: home,
      env: userEnv(home),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    child.stdin.write(
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n',
    );
    child.stdin.flush();
    const reader = child.stdout.getReader();
    let line = "";
    while (!line.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      line += new TextDecoder().decode(value);
    }
    child.stdin.end();
    expect(JSON.parse(line.split("\n")[0]!)).toMatchObject({
      jsonrpc: "2.0",
      id: 0,
      result: { protocolVersion: 1 },
    });
    reader.releaseLock();
    await child.exited;
  }, 60_000);

  /** Starts the installed `knightcode app-server <flags>` in a fresh project and runs one turn. */
  async function serverTurn(flags: string[], prompt: string) {
    const home = freshHome(`server-${flags.join("").replace(/\W/g, "") || "plain"}-${prompt.length}`);
    const cwd = join(home, "project");
    mkdirSync(cwd);
    writeFileSync(join(cwd, "notes.txt"), "a file for the demo model to list\n");
    const { child, client, init } = await startInstalledServer(
      ["app-server", ...flags],
      cwd,
      userEnv(home),
      "install-test",
    );
    const { thread } = await client.request("thread/start", { cwd, approvalMode: "fullAccess" });
    let reply = "";
    const tools: { name: string; status: string; output?: string }[] = [];
    client.onNotification("item/agentMessage/delta", (p) => {
      reply += p.delta;
    });
    client.onNotification("item/completed", ({ item }) => {
      if (item.type === "toolCall")
        tools.push({ name: item.toolName, status: item.status, output: item.output });
    });
    const completed = new Promise<string>((resolve) => {
      client.onNotification("turn/completed", (p) => resolve(p.turn.status));
    });
    await client.request("turn/start", { threadId: thread.id, text: prompt });
    const status = await completed;
    child.stdin.end();
    const stderr = new Response(child.stderr).text();
    return {
      init,
      model: thread.model,
      status,
      reply,
      tools,
      exitCode: await child.exited,
      stderr: await stderr,
    };
  }

  test("app-server answers initialize and thread/start and completes a turn on the demo model", async () => {
    const turn = await serverTurn([], "Hello!");
    expect(turn.init.serverInfo.name).toBe("knightcode-app-server");
    expect([turn.model, turn.status, turn.exitCode]).toEqual([
      { provider: "demo", id: "demo" },
      "completed",
      0,
    ]);
    expect(turn.reply).toContain("offline demo model");
  }, 60_000);

  test("app-server --sandbox runs a tool call through the binary's own sandbox helper", async () => {
    const turn = await serverTurn(["--sandbox"], "Please list the files in this project folder.");
    expect([turn.status, turn.exitCode]).toEqual(["completed", 0]);
    expect(turn.tools).toEqual([
      { name: "ls", status: "completed", output: expect.stringContaining("notes.txt") },
    ]);
  }, 60_000);

  test("app-server --sandbox=process re-runs the binary inside bubblewrap and completes a turn", async () => {
    const turn = await serverTurn(["--sandbox=process"], "Please list the files in this project folder.");
    expect([turn.status, turn.exitCode, turn.stderr]).toEqual(["completed", 0, expect.any(String)]);
    expect(turn.tools).toEqual([
      { name: "ls", status: "completed", output: expect.stringContaining("notes.txt") },
    ]);
  }, 60_000);

  test("a project's .env and bunfig.toml are not loaded: a key in .env does not change the default model", async () => {
    const home = freshHome("dotenv-home");
    const cwd = join(home, "project");
    mkdirSync(cwd);
    writeFileSync(join(cwd, ".env"), "ANTHROPIC_API_KEY=sk-ant-from-dotenv\n");
    writeFileSync(join(cwd, "bunfig.toml"), '[run]\npreload = ["./preload.ts"]\n');
    writeFileSync(join(cwd, "preload.ts"), 'process.stderr.write("PRELOADED\\n");\n');
    const modelOf = async (env: Record<string, string>) => {
      const { child, client } = await startInstalledServer(["app-server"], cwd, env, "dotenv-test");
      const { thread } = await client.request("thread/start", { cwd });
      child.stdin.end();
      const stderr = await new Response(child.stderr).text();
      await child.exited;
      return { provider: thread.model?.provider, preloaded: stderr.includes("PRELOADED") };
    };
    expect(await modelOf(userEnv(home))).toEqual({ provider: "demo", preloaded: false });
    // the same key in the real environment does change it, so the check above can fail
    const withKey = await modelOf({ ...userEnv(home), ANTHROPIC_API_KEY: "sk-ant-from-env" });
    expect(withKey.provider).toBe("anthropic");
  }, 60_000);

  test("a malformed settings file is reported with its line and column (the JSON scanner loads lazily inside the binary)", async () => {
    const home = freshHome("malformed-settings-home");
    const cwd = join(home, "project");
    mkdirSync(cwd);
    mkdirSync(join(home, ".knightcode", "agent"), { recursive: true });
    writeFileSync(join(home, ".knightcode", "agent", "settings.json"), '{\n  "a": 1,\n  "b": ,\n}\n');
    const { child, client } = await startInstalledServer(
      ["app-server"],
      cwd,
      userEnv(home),
      "malformed-settings-test",
    );
    const read = await client.request("config/read", { cwd });
    child.stdin.end();
    await child.exited;
    expect(read.errors).toEqual([
      expect.objectContaining({
        source: "settings",
        message: expect.stringContaining("ValueExpected"),
        line: 3,
        column: 8,
      }),
    ]);
  }, 60_000);

  test("extensions load from user files at run time: TypeScript, typebox and @knightcode/extensions from the binary, the extension's own files and node_modules from disk", async () => {
    const home = freshHome("extension-home");
    const cwd = join(home, "project");
    const ext = join(home, "ext");
    mkdirSync(cwd);
    mkdirSync(join(ext, "node_modules", "own-dep"), { recursive: true });
    // its entry is named only by package.json (no index.js): the binary's resolver must read it
    mkdirSync(join(ext, "node_modules", "own-dep", "lib"));
    writeFileSync(
      join(ext, "node_modules", "own-dep", "package.json"),
      '{ "name": "own-dep", "version": "1.0.0", "type": "module", "exports": { ".": "./lib/shout.js" } }\n',
    );
    writeFileSync(
      join(ext, "node_modules", "own-dep", "lib", "shout.js"),
      "export const shout = (s) => s.toUpperCase();\n",
    );
    writeFileSync(join(ext, "helper.ts"), "export const twice = (n: number): number => n * 2;\n");
    writeFileSync(
      join(ext, "probe.ts"),
      [
        'import type { ExtensionAPI } from "@knightcode/extensions";',
        'import { DEFAULT_HOOK_TIMEOUT_MS } from "@knightcode/extensions";',
        'import Type from "typebox";',
        'import { Compile } from "typebox/compile";',
        'import { shout } from "own-dep";',
        'import { twice } from "./helper.ts";',
        "",
        "export default function (knightcode: ExtensionAPI) {",
        "  const check = Compile(Type.Object({ name: Type.String() }));",
        "  const description = [",
        '    "valid " + check.Check({ name: "x" }) + " " + check.Check({}),',
        '    "hook " + typeof DEFAULT_HOOK_TIMEOUT_MS,',
        '    "dep " + shout("ok"),',
        '    "helper " + twice(21),',
        '  ].join(", ");',
        '  knightcode.registerCommand("probe", { description, handler: async () => {} });',
        "}",
        "",
      ].join("\n"),
    );
    const { child, client } = await startInstalledServer(
      ["app-server", "-e", join(ext, "probe.ts")],
      cwd,
      userEnv(home),
      "extension-test",
    );
    const { thread, warnings } = await client.request("thread/start", { cwd });
    expect(warnings).toEqual([]);
    const { commands } = await client.request("command/list", { threadId: thread.id });
    expect(commands.find((c) => c.name === "probe")?.description).toBe(
      "valid true false, hook number, dep OK, helper 42",
    );
    child.stdin.end();
    expect(await child.exited).toBe(0);
  }, 60_000);
});
