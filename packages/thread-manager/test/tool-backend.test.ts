import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isolatedToolBackendFactory } from "../src/tools/tool-backend.ts";

/**
 * The sandbox helper from this checkout's sources, as a host passes it: the package's
 * helper-main.ts process beside its `./helper` library export (which runs nothing itself).
 */
const HELPER_MAIN = join(
  dirname(fileURLToPath(import.meta.resolve("@knightcode/sandbox/helper"))),
  "helper-main.ts",
);
const SOURCE_HELPER = {
  argv: [process.execPath, HELPER_MAIN],
  readable: [process.execPath, resolve(import.meta.dir, "..", "..", "..")],
};

function tempProject(): { cwd: string } & AsyncDisposable {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "tool-backend-")));
  writeFileSync(join(cwd, "notes.txt"), "inside");
  return { cwd, [Symbol.asyncDispose]: async () => rmSync(cwd, { recursive: true, force: true }) };
}

describe("the default tool backend with --sandbox", () => {
  test("without a helper command the thread fails closed: unavailable, a startFailed warning, every call refused", async () => {
    await using project = tempProject();
    const backend = await isolatedToolBackendFactory({ sandbox: true })({
      cwd: project.cwd,
      globalSettings: null,
      projectSettings: null,
    });
    const message =
      "Sandbox unavailable (startFailed): this server was built without a command to start the sandbox helper (the sandboxHelper option).";
    expect(backend.sandbox).toEqual({ mode: "unavailable", network: "off" });
    expect(backend.warnings).toEqual([{ source: "sandbox", message: expect.stringContaining(message) }]);
    await expect(backend.ops!.readFile(join(project.cwd, "notes.txt"))).rejects.toThrow(message);
  });

  test("with the helper command given, tools run in bubblewrap and see the project", async () => {
    await using project = tempProject();
    const backend = await isolatedToolBackendFactory({ sandbox: true, sandboxHelper: SOURCE_HELPER })({
      cwd: project.cwd,
      globalSettings: null,
      projectSettings: null,
    });
    try {
      expect(backend.sandbox).toEqual({ mode: "bubblewrap", network: "off" });
      expect(new TextDecoder().decode(await backend.ops!.readFile(join(project.cwd, "notes.txt")))).toBe(
        "inside",
      );
    } finally {
      await backend.dispose();
    }
  });
});
