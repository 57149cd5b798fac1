/**
 * A thread's discovery answers at once when nothing can be found, and every place an
 * extension can come from still defeats that shortcut: each is found as the full walk
 * finds it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DiscoveredExtensions, discoverThreadExtensions } from "../src/discovery.ts";
import { hostOptions, hostPlace } from "./support/host-options.ts";

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
    const at = hostPlace();
    expect(await discoverThreadExtensions(hostOptions(at))).toEqual(NOTHING);
    // an empty `extensions` list and empty folders take the full walk, to the same answer
    mkdirSync(join(at.agentDir, "extensions"));
    mkdirSync(join(at.cwd, ".knightcode", "extensions"), { recursive: true });
    expect(
      await discoverThreadExtensions(hostOptions(at, { settings: { extensions: [] }, trusted: true })),
    ).toEqual(NOTHING);
  });

  test("the agent dir's extensions folder is found", async () => {
    const at = hostPlace({ "agent/extensions/hello.ts": "" });
    expect(found(await discoverThreadExtensions(hostOptions(at)))).toEqual([
      `agent:${join(at.agentDir, "extensions", "hello.ts")}`,
    ]);
  });

  test("a trusted project's folder is found; an untrusted one's is not", async () => {
    const at = hostPlace({ "project/.knightcode/extensions/local.ts": "" });
    expect(found(await discoverThreadExtensions(hostOptions(at)))).toEqual([]);
    expect(found(await discoverThreadExtensions(hostOptions(at, { trusted: true })))).toEqual([
      `project:${join(at.cwd, ".knightcode", "extensions", "local.ts")}`,
    ]);
  });

  test("-e paths and the extensions setting are found, and a missing one is a warning", async () => {
    const at = hostPlace({ "elsewhere/cli.ts": "", "elsewhere/setting.ts": "" });
    const discovered = await discoverThreadExtensions(
      hostOptions(at, {
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
    const at = hostPlace({
      "pkg/package.json": JSON.stringify({ pi: { extensions: ["./main.ts"] } }),
      "pkg/main.ts": "",
    });
    const settings = { packages: [join(at.root, "pkg")] };
    writeFileSync(join(at.agentDir, "settings.json"), JSON.stringify(settings));
    expect(found(await discoverThreadExtensions(hostOptions(at, { settings })))).toEqual([
      `package:${join(at.root, "pkg", "main.ts")}`,
    ]);
  });

  test("with pi compatibility on, pi's extensions folder is found", async () => {
    const at = hostPlace({ "pi/extensions/from-pi.ts": "" });
    process.env.PI_CODING_AGENT_DIR = join(at.root, "pi");
    expect(
      found(await discoverThreadExtensions(hostOptions(at, { settings: { compat: { pi: true } } }))),
    ).toEqual([`pi:${join(at.root, "pi", "extensions", "from-pi.ts")}`]);
  });
});
