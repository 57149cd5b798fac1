import { describe, expect, test } from "bun:test";
import { createLocalOperations } from "../../src/index.ts";
import { tempDir } from "../helpers/temp-dir.ts";

describe("local operations", () => {
  test("stat reports missing paths as undefined and mkdir creates parents", async () => {
    await using dir = tempDir();
    const ops = createLocalOperations();
    expect(await ops.stat(dir.join("missing"))).toBeUndefined();
    expect(await ops.stat(dir.join("missing/below"))).toBeUndefined();
    await ops.mkdir(dir.join("a/b/c"));
    await ops.mkdir(dir.join("a/b/c"));
    expect(await ops.stat(dir.join("a/b/c"))).toMatchObject({ isDirectory: true, isFile: false });
    await ops.writeFile(dir.join("a/f.txt"), "one");
    await ops.appendFile(dir.join("a/f.txt"), "two");
    expect(new TextDecoder().decode(await ops.readFile(dir.join("a/f.txt")))).toBe("onetwo");
    expect((await ops.readdir(dir.join("a"))).sort((x, y) => x.name.localeCompare(y.name))).toEqual([
      { name: "b", isDirectory: true },
      { name: "f.txt", isDirectory: false },
    ]);
  });

  test("spawn adds to the environment, reports the exit code and streams stdout and stderr", async () => {
    await using dir = tempDir();
    const ops = createLocalOperations();
    const out: string[] = [];
    const err: string[] = [];
    const result = await ops.spawn({
      file: "/bin/sh",
      args: ["-c", 'echo "$GREETING"; echo oops >&2; exit 4'],
      cwd: dir.path,
      env: { GREETING: "hello" },
      onStdout: (c) => out.push(new TextDecoder().decode(c)),
      onStderr: (c) => err.push(new TextDecoder().decode(c)),
    });
    expect(result).toEqual({ exitCode: 4, signal: null, timedOut: false, aborted: false });
    expect(out.join("")).toBe("hello\n");
    expect(err.join("")).toBe("oops\n");
  });

  test("an already aborted signal starts nothing", async () => {
    await using dir = tempDir();
    const ops = createLocalOperations();
    const result = await ops.spawn({
      file: "/bin/sh",
      args: ["-c", `touch ${dir.join("ran")}`],
      cwd: dir.path,
      signal: AbortSignal.abort(),
    });
    expect(result.aborted).toBe(true);
    expect(await ops.stat(dir.join("ran"))).toBeUndefined();
  });

  test("a missing executable rejects", async () => {
    await using dir = tempDir();
    const ops = createLocalOperations();
    await expect(ops.spawn({ file: dir.join("no-such-binary"), args: [], cwd: dir.path })).rejects.toThrow();
  });

  test("which follows the configured PATH; home and temp dirs can be overridden", async () => {
    const ops = createLocalOperations({ env: { PATH: "/nonexistent" }, homeDir: "/h", tempDir: "/t" });
    expect(await ops.which("sh")).toBeUndefined();
    expect(ops.homeDir()).toBe("/h");
    expect(ops.tempDir()).toBe("/t");
    expect(await createLocalOperations().which("sh")).toBeDefined();
  });
});
