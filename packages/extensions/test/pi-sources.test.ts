import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { piLocations } from "../src/pi/pi-sources.ts";
import { type DiscoveryStep, discoverExtensions } from "../src/sources.ts";

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "kc-pi-sources-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const paths = (steps: DiscoveryStep[]) => steps.flatMap((s) => ("source" in s ? [s.source.path] : []));

function piTree(): string {
  return tree({
    "agent/extensions/own.ts": "",
    "pi/extensions/b.ts": "",
    "pi/extensions/a.ts": "",
    "pi/named.ts": "",
    "pi/pkg/package.json": JSON.stringify({ pi: { extensions: ["./main.ts"] } }),
    "pi/pkg/main.ts": "",
    "pi/settings.json": JSON.stringify({
      extensions: ["named.ts"],
      packages: ["./pkg", "npm:installed-by-pi", { source: "git:github.com/x/y" }],
    }),
    "project/.knightcode/extensions/p.ts": "",
    "project/.pi/extensions/pp.ts": "",
  });
}

function discover(root: string, settings: Record<string, unknown>, trusted: boolean): string[] {
  const projectDir = join(root, "project");
  return paths(
    discoverExtensions({
      cliPaths: [],
      agentDir: join(root, "agent"),
      projectDir,
      trusted,
      extraLocations: piLocations({ settings, trusted, projectDir, piAgentDir: join(root, "pi") }),
    }),
  );
}

describe("pi locations (compat.pi)", () => {
  test("off by default: only KnightCode's own locations load", () => {
    const root = piTree();
    expect(discover(root, {}, true)).toEqual([
      join(root, "agent/extensions/own.ts"),
      join(root, "project/.knightcode/extensions/p.ts"),
    ]);
    expect(discover(root, { compat: { pi: "yes" } }, true)).toHaveLength(2);
  });

  test("on: pi's settings entries, local packages by their pi manifest, its folder, then a trusted project's .pi/extensions", () => {
    const root = piTree();
    expect(discover(root, { compat: { pi: true } }, true)).toEqual([
      join(root, "agent/extensions/own.ts"),
      join(root, "project/.knightcode/extensions/p.ts"),
      join(root, "pi/named.ts"),
      join(root, "pi/pkg/main.ts"),
      join(root, "pi/extensions/a.ts"),
      join(root, "pi/extensions/b.ts"),
      join(root, "project/.pi/extensions/pp.ts"),
    ]);
  });

  test("an untrusted project's .pi/extensions does not load, like its .knightcode/extensions", () => {
    const root = piTree();
    const found = discover(root, { compat: { pi: true } }, false);
    expect(found).not.toContain(join(root, "project/.pi/extensions/pp.ts"));
    expect(found).not.toContain(join(root, "project/.knightcode/extensions/p.ts"));
    expect(found).toContain(join(root, "pi/extensions/a.ts"));
  });
});
