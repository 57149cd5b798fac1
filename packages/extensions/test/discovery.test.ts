/**
 * A thread's discovery answers at once when nothing can be found, and every place an
 * extension can come from still defeats that shortcut: each is found as the full walk
 * finds it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DiscoveredExtensions, discoverThreadExtensions } from "../src/discovery.ts";
import type { ExtensionHostOptions } from "../src/host-contract.ts";

function tree(files: Record<string, string> = {}): { root: string; agentDir: string; cwd: string } {
  const root = mkdtempSync(join(tmpdir(), "kc-discovery-"));
  const agentDir = join(root, "agent");
  const cwd = join(root, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { root, agentDir, cwd };
}

function options(
  at: { agentDir: string; cwd: string },
  extra: Partial<ExtensionHostOptions> = {},
): ExtensionHostOptions {
  return {
    context: { threadId: "t1", cwd: at.cwd, mode: "desktop", hasUI: false },
    extensionPaths: [],
    agentDir: at.agentDir,
    settings: {},
    trusted: false,
    projectDir: at.cwd,
    reason: "startup",
    ...extra,
  };
}

const NOTHING: DiscoveredExtensions = {
  packages: { locations: [], warnings: [], skillPaths: [], promptPaths: [] },
  steps: [],
};

const found = (discovered: DiscoveredExtensions) =>
  discovered.steps.flatMap((step) => ("source" in step ? [`${step.source.origin}:${step.source.path}`] : []));

const savedPiDir = process.env.PI_CODING_AGENT_DIR;
afterEach(() => {
  if (savedPiDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
  else process.env.PI_CODING_AGENT_DIR = savedPiDir;
});

describe("discoverThreadExtensions", () => {
  test("nothing to find gives what the full walk gives for places that hold nothing", async () => {
    const at = tree();
    expect(await discoverThreadExtensions(options(at))).toEqual(NOTHING);
    // an empty `extensions` list and empty folders take the full walk, to the same answer
    mkdirSync(join(at.agentDir, "extensions"));
    mkdirSync(join(at.cwd, ".knightcode", "extensions"), { recursive: true });
    expect(
      await discoverThreadExtensions(options(at, { settings: { extensions: [] }, trusted: true })),
    ).toEqual(NOTHING);
  });

  test("the agent dir's extensions folder is found", async () => {
    const at = tree({ "agent/extensions/hello.ts": "" });
    expect(found(await discoverThreadExtensions(options(at)))).toEqual([
      `agent:${join(at.agentDir, "extensions", "hello.ts")}`,
    ]);
  });

  test("a trusted project's folder is found; an untrusted one's is not", async () => {
    const at = tree({ "project/.knightcode/extensions/local.ts": "" });
    expect(found(await discoverThreadExtensions(options(at)))).toEqual([]);
    expect(found(await discoverThreadExtensions(options(at, { trusted: true })))).toEqual([
      `project:${join(at.cwd, ".knightcode", "extensions", "local.ts")}`,
    ]);
  });

  test("-e paths and the extensions setting are found, and a missing one is a warning", async () => {
    const at = tree({ "elsewhere/cli.ts": "", "elsewhere/setting.ts": "" });
    const discovered = await discoverThreadExtensions(
      options(at, {
        extensionPaths: [join(at.root, "elsewhere", "cli.ts")],
        settings: { extensions: [join(at.root, "elsewhere", "setting.ts"), join(at.root, "gone.ts")] },
      }),
    );
    expect(found(discovered)).toEqual([
      `cli:${join(at.root, "elsewhere", "cli.ts")}`,
      `settings:${join(at.root, "elsewhere", "setting.ts")}`,
    ]);
    expect(discovered.steps).toContainEqual({
      warning: expect.objectContaining({ message: `Extension not found: ${join(at.root, "gone.ts")}` }),
    });
  });

  test("a package named in the settings file is found", async () => {
    const at = tree({
      "pkg/package.json": JSON.stringify({ pi: { extensions: ["./main.ts"] } }),
      "pkg/main.ts": "",
    });
    const settings = { packages: [join(at.root, "pkg")] };
    writeFileSync(join(at.agentDir, "settings.json"), JSON.stringify(settings));
    expect(found(await discoverThreadExtensions(options(at, { settings })))).toEqual([
      `package:${join(at.root, "pkg", "main.ts")}`,
    ]);
  });

  test("with pi compatibility on, pi's extensions folder is found", async () => {
    const at = tree({ "pi/extensions/from-pi.ts": "" });
    process.env.PI_CODING_AGENT_DIR = join(at.root, "pi");
    expect(
      found(await discoverThreadExtensions(options(at, { settings: { compat: { pi: true } } }))),
    ).toEqual([`pi:${join(at.root, "pi", "extensions", "from-pi.ts")}`]);
  });
});
