/**
 * What `dist/knightcode` carries: the bundle `bun run build` compiles, listed through the
 * bundler's metafile (the same entry and options, without the compile step). Test
 * support, fixtures, benches and build scripts must never be reachable from main.ts;
 * docs/install.md ("What the binary is made of") has the sizes.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { BUNDLE_OPTIONS, cliBundleFiles, ENTRY } from "../scripts/build.ts";

const root = join(import.meta.dir, "..");
const outdir = mkdtempSync(join(tmpdir(), "knightcode-bundle-"));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The bundle's input files, relative to the checkout. */
async function bundledInputs(): Promise<string[]> {
  const result = await Bun.build({
    entrypoints: [ENTRY],
    files: await cliBundleFiles(),
    ...BUNDLE_OPTIONS,
    outdir,
    metafile: true,
  });
  if (!result.success || result.metafile === undefined) throw new Error(String(result.logs.join("\n")));
  return Object.keys(result.metafile.inputs).map((path) => relative(root, join(root, path)));
}

/** Places in the checkout whose code exists for tests, benches or builds only. */
const DEV_ONLY = [
  /(^|\/)packages\/testkit\//,
  /(^|\/)test\//,
  /(^|\/)fixtures\//,
  /(^|\/)bench\//,
  /(^|\/)scripts\//,
  /(^|\/)examples\//,
  /\.test\.ts$/,
];

describe("the compiled binary's bundle", () => {
  test("holds the CLI and its runtime packages, and nothing test-only, bench-only or build-only", async () => {
    const inputs = await bundledInputs();
    // it is the real bundle: the entry, the server and the terminal are in it
    expect(inputs).toContain("apps/cli/src/main.ts");
    expect(inputs.some((path) => path.startsWith("packages/app-server/src/"))).toBe(true);
    expect(inputs.some((path) => path.startsWith("apps/cli/src/interactive/"))).toBe(true);
    const ours = inputs.filter((path) => !path.includes("node_modules/"));
    expect(ours.filter((path) => DEV_ONLY.some((pattern) => pattern.test(path)))).toEqual([]);
    // no package reached through node_modules may be one of ours used only by tests
    expect(inputs.filter((path) => path.includes("node_modules/@knightcode/testkit"))).toEqual([]);
  }, 60_000);
});
