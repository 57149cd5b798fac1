import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createSandboxOperations,
  requireBubblewrap,
  type SandboxOperations,
  type SandboxSettings,
} from "../src/index.ts";
import { SOURCE_HELPER } from "./source-helper.ts";

const SETTINGS: SandboxSettings = {
  enabled: true,
  network: "off",
  extraWritable: [],
  extraReadable: [],
  allowGitWrites: false,
};

interface Fixture extends AsyncDisposable {
  project: string;
  ops: SandboxOperations;
}

async function sandbox(settings: Partial<SandboxSettings> = {}): Promise<Fixture> {
  const project = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-ops-")));
  const ops = createSandboxOperations({
    bwrap: await requireBubblewrap(process.env.PATH ?? ""),
    cwd: project,
    env: { ...process.env, SOME_API_KEY: "leak-me-not" },
    settings: { ...SETTINGS, ...settings },
    hidden: [],
    helper: SOURCE_HELPER,
  });
  return {
    project,
    ops,
    async [Symbol.asyncDispose]() {
      await ops.dispose();
      rmSync(project, { recursive: true, force: true });
    },
  };
}

async function run(
  ops: SandboxOperations,
  cwd: string,
  command: string,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
) {
  let out = "";
  const result = await ops.spawn({
    file: "/bin/bash",
    args: ["-c", command],
    cwd,
    ...options,
    onStdout: (c) => {
      out += new TextDecoder().decode(c);
    },
    onStderr: (c) => {
      out += new TextDecoder().decode(c);
    },
  });
  return { result, out };
}

describe("sandbox operations", () => {
  test("file operations act on the project through the sandbox", async () => {
    await using f = await sandbox();
    await f.ops.mkdir(join(f.project, "a", "b"));
    await f.ops.writeFile(join(f.project, "a", "b", "x.txt"), "one\n");
    await f.ops.appendFile(join(f.project, "a", "b", "x.txt"), new TextEncoder().encode("two\n"));
    expect(readFileSync(join(f.project, "a", "b", "x.txt"), "utf8")).toBe("one\ntwo\n");
    expect(new TextDecoder().decode(await f.ops.readFile(join(f.project, "a", "b", "x.txt")))).toBe(
      "one\ntwo\n",
    );
    expect(await f.ops.stat(join(f.project, "a"))).toMatchObject({ isDirectory: true, isFile: false });
    expect(await f.ops.stat(join(f.project, "missing"))).toBeUndefined();
    expect(await f.ops.readdir(join(f.project, "a"))).toEqual([{ name: "b", isDirectory: true }]);
    expect(await f.ops.which("bash")).toEndWith("/bash");
    expect(await f.ops.which("no-such-binary-here")).toBeUndefined();
    await expect(f.ops.readFile(join(f.project, "missing"))).rejects.toThrow("ENOENT");
  });

  test("a large file reads back byte for byte", async () => {
    await using f = await sandbox();
    const big = new Uint8Array(1024 * 1024 + 3).map((_, i) => (i * 7) % 256);
    writeFileSync(join(f.project, "big.bin"), big);
    expect(await f.ops.readFile(join(f.project, "big.bin"))).toEqual(big);
  });

  test("processes stream output, see no credential, and run in their own namespaces", async () => {
    await using f = await sandbox();
    const { result, out } = await run(f.ops, f.project, 'echo "[$SOME_API_KEY]"; hostname; pwd; echo $$');
    expect(result.exitCode).toBe(0);
    const [key, host, cwd] = out.split("\n");
    expect(key).toBe("[]");
    expect(host).toBe("knightcode-sandbox");
    expect(cwd).toBe(f.project);
  });

  test("a timeout kills the command and reports it", async () => {
    await using f = await sandbox();
    const { result } = await run(f.ops, f.project, "sleep 30", { timeoutMs: 200 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
  });

  test("an abort kills the command", async () => {
    await using f = await sandbox();
    const controller = new AbortController();
    const { promise: started, resolve } = Promise.withResolvers<void>();
    const running = f.ops.spawn({
      file: "/bin/bash",
      args: ["-c", "echo started; sleep 30"],
      cwd: f.project,
      signal: controller.signal,
      onStdout: () => resolve(),
    });
    await started;
    controller.abort();
    const result = await running;
    expect(result.aborted).toBe(true);
    expect(result.exitCode).toBeNull();
  });

  test("when the helper is killed, the call fails and the next one starts a fresh sandbox", async () => {
    await using f = await sandbox();
    // $PPID of the command is the helper
    await expect(run(f.ops, f.project, "kill -9 $PPID; sleep 5")).rejects.toThrow("sandbox helper exited");
    const { out } = await run(f.ops, f.project, "echo again");
    expect(out).toBe("again\n");
  });

  test("with sandbox.workspace the cwd appears at /workspace; host paths the tools use still work", async () => {
    await using f = await sandbox({ workspace: "/workspace" });
    await f.ops.writeFile(join(f.project, "from-tool.txt"), "tool\n");
    const { out } = await run(
      f.ops,
      f.project,
      "pwd; cat from-tool.txt; echo bash > /workspace/from-bash.txt; ls /",
    );
    const [pwd, content] = out.split("\n");
    expect(pwd).toBe("/workspace");
    expect(content).toBe("tool");
    expect(out).toContain("\nusr\n");
    expect(readFileSync(join(f.project, "from-bash.txt"), "utf8")).toBe("bash\n");
    expect(await f.ops.stat(join(f.project, "from-bash.txt"))).toMatchObject({ isFile: true });
    // the rebuilt root is read-only like the host's
    const { out: denied } = await run(f.ops, f.project, "touch /new-top-level 2>&1; echo done");
    expect(denied).toContain("Read-only file system");
  });

  test("git writes are allowed only when allowGitWrites is set", async () => {
    await using strict = await sandbox();
    await Bun.write(join(strict.project, ".git", "HEAD"), "ref\n");
    await expect(strict.ops.writeFile(join(strict.project, ".git", "HEAD"), "x")).rejects.toThrow("EROFS");
    await using loose = await sandbox({ allowGitWrites: true });
    await Bun.write(join(loose.project, ".git", "HEAD"), "ref\n");
    await loose.ops.writeFile(join(loose.project, ".git", "HEAD"), "changed\n");
    expect(readFileSync(join(loose.project, ".git", "HEAD"), "utf8")).toBe("changed\n");
  });
});
