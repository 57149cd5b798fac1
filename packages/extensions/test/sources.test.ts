import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DiscoveryStep, discoverExtensions } from "../src/sources.ts";

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "kc-sources-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const paths = (steps: DiscoveryStep[]) => steps.flatMap((s) => ("source" in s ? [s.source.path] : []));
const warnings = (steps: DiscoveryStep[]) => steps.flatMap((s) => ("warning" in s ? [s.warning] : []));

describe("extension sources", () => {
  test("order is -e, settings, agent dir, trusted project; folders one level deep; dot-entries and node_modules skipped", () => {
    const root = tree({
      "cli.ts": "",
      "agent/extensions/b.ts": "",
      "agent/extensions/a.js": "",
      "agent/extensions/types.d.ts": "",
      "agent/extensions/.hidden.ts": "",
      "agent/extensions/node_modules/x/index.ts": "",
      "agent/extensions/dir/index.ts": "",
      "agent/extensions/dir/nested/deep.ts": "",
      "agent/extensions/pkg/package.json": JSON.stringify({ knightcode: { extensions: ["./main.ts"] } }),
      "agent/extensions/pkg/main.ts": "",
      "agent/from-settings.ts": "",
      "project/.knightcode/extensions/p.ts": "",
    });
    const steps = discoverExtensions({
      cliPaths: [join(root, "cli.ts")],
      settingsPaths: ["from-settings.ts"],
      agentDir: join(root, "agent"),
      projectDir: join(root, "project"),
      trusted: true,
    });
    expect(paths(steps)).toEqual([
      join(root, "cli.ts"),
      join(root, "agent/from-settings.ts"),
      join(root, "agent/extensions/a.js"),
      join(root, "agent/extensions/b.ts"),
      join(root, "agent/extensions/dir/index.ts"),
      join(root, "agent/extensions/pkg/main.ts"),
      join(root, "project/.knightcode/extensions/p.ts"),
    ]);
    expect(warnings(steps)).toEqual([]);
  });

  test("an untrusted project contributes nothing", () => {
    const root = tree({ "project/.knightcode/extensions/p.ts": "" });
    for (const trusted of [false, undefined]) {
      const steps = discoverExtensions({
        cliPaths: [],
        projectDir: join(root, "project"),
        ...(trusted === undefined ? {} : { trusted }),
      });
      expect(paths(steps)).toEqual([]);
    }
  });

  test("a missing -e path is a warning in its place; the same file reached twice loads once", () => {
    const root = tree({ "one.ts": "" });
    symlinkSync(join(root, "one.ts"), join(root, "alias.ts"));
    const steps = discoverExtensions({
      cliPaths: [join(root, "missing.ts"), join(root, "one.ts"), join(root, "alias.ts")],
    });
    expect(steps).toEqual([
      {
        warning: {
          source: "extension",
          path: join(root, "missing.ts"),
          message: `Extension not found: ${join(root, "missing.ts")}`,
        },
      },
      { source: { path: join(root, "one.ts"), origin: "cli" } },
    ]);
  });

  test("a malformed extensions setting is a settings warning; a folder without an entry is an extension warning", () => {
    const root = tree({ "empty/readme.md": "" });
    const bad = discoverExtensions({ cliPaths: [], settingsPaths: "not-a-list" });
    expect(warnings(bad)).toEqual([
      { source: "settings", message: "The extensions setting must be a list of paths" },
    ]);
    const folder = discoverExtensions({ cliPaths: [join(root, "empty")] });
    expect(warnings(folder)[0]).toMatchObject({ source: "extension", path: join(root, "empty") });
  });
});
