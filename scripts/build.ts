/**
 * `bun run build`: compiles the CLI into one executable, `dist/knightcode`, with
 * `bun build --compile`. The bundle starts at `apps/cli/src/main.ts`, so every
 * subcommand main.ts dispatches to is in it without being listed here; the modules a
 * subcommand loads with `import()` are still evaluated only when it runs.
 *
 * Choices (see docs/install.md):
 * - bytecode: JavaScriptCore bytecode is compiled at build time, so a fresh process
 *   neither transpiles TypeScript nor parses JavaScript before it can answer;
 * - code splitting: every `import()` target is its own chunk inside the binary, loaded
 *   when first imported, so `--version` loads almost nothing and `app-server` only what
 *   serving needs (without it the whole bundle's bytecode loaded at start: 19 ms of CPU
 *   for `--version` against 8 ms with it);
 * - no `.env`, `bunfig.toml` or `tsconfig.json` autoload: the binary runs in the user's
 *   projects, whose `.env` is theirs and must not leak into the agent's environment;
 * - `package.json` stays on: without it the binary's resolver reads no package.json at
 *   all, so an extension's own dependency whose entry only package.json names (`main`,
 *   `exports`: typebox, most of npm) would not resolve;
 * - user files (extensions, their own `node_modules`) are never bundled: they are
 *   imported at run time from disk, as they are from source;
 * - the web client (`apps/web`) is bundled for the browser first, and its files are
 *   compiled in as a module that replaces `web-assets.ts` (which bundles at run time
 *   from the sources), so `knightcode web` serves them without reading a file.
 *
 * `--outfile <path>` writes elsewhere (the cold-start bench builds into a temp dir).
 */
import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { embeddedAssetsModule, loadWebAssets } from "@knightcode/web";

const ROOT = join(import.meta.dir, "..");
export const ENTRY = join(ROOT, "apps", "cli", "src", "main.ts");
export const DEFAULT_OUTFILE = join(ROOT, "dist", "knightcode");
/** The module the binary gets with the web client's files inside. */
const WEB_ASSETS_MODULE = join(ROOT, "apps", "web", "src", "server", "web-assets.ts");

export interface BuildOptions {
  outfile?: string;
  /** Another program to compile the same way (the cold-start bench's floor server). */
  entry?: string;
}

/**
 * How the bundle is made, compiled or not: `test/binary-contents.test.ts` bundles with
 * these to list what the binary holds.
 */
export const BUNDLE_OPTIONS = {
  target: "bun",
  format: "esm",
  splitting: true,
  minify: { syntax: true, whitespace: true, identifiers: false },
  sourcemap: "none",
} as const;

/** The modules the CLI's bundle gets in place of files: the web client's, built for the browser. */
export async function cliBundleFiles(): Promise<Record<string, string>> {
  return { [WEB_ASSETS_MODULE]: embeddedAssetsModule(await loadWebAssets()) };
}

/** Compiles the CLI; throws with the bundler's messages when the build fails. */
export async function buildBinary(options: BuildOptions = {}): Promise<string> {
  const outfile = resolve(options.outfile ?? DEFAULT_OUTFILE);
  await mkdir(dirname(outfile), { recursive: true });
  const files = options.entry === undefined ? await cliBundleFiles() : {};
  const result = await Bun.build({
    entrypoints: [options.entry ?? ENTRY],
    files,
    ...BUNDLE_OPTIONS,
    bytecode: true,
    compile: {
      outfile,
      autoloadDotenv: false,
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: true,
    },
  });
  if (!result.success) {
    throw new Error(`build failed:\n${result.logs.map((log) => String(log)).join("\n")}`);
  }
  return outfile;
}

if (import.meta.main) {
  const outArg = process.argv.indexOf("--outfile");
  const outfile = outArg === -1 ? undefined : process.argv[outArg + 1];
  if (outArg !== -1 && (outfile === undefined || outfile === "")) {
    process.stderr.write("build: --outfile needs a path\n");
    process.exit(2);
  }
  try {
    const written = await buildBinary(outfile === undefined ? {} : { outfile });
    process.stderr.write(`build: wrote ${written}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
