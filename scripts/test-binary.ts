/**
 * `bun run test:binary`, the second pass of `bun run test`: builds `dist/knightcode` once
 * and runs the end-to-end suites again with `KNIGHTCODE_BIN` pointing at it, so the
 * artifact people install is proved by the same tests as the sources. The shared harnesses
 * (testkit's `knightcodeArgv`) spawn the binary instead of Bun plus `main.ts`.
 *
 * A file that cannot apply to the binary is left out here, with its reason in one line;
 * `test/test-binary.test.ts` checks that every entry names a file that exists.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { buildBinary } from "./build.ts";

const ROOT = join(import.meta.dir, "..");

/** Folders whose `*.test.ts` files run against the binary. */
export const BINARY_SUITES: readonly string[] = [
  "packages/app-server/test/e2e",
  "packages/app-server/test/e2e/listen",
  "packages/acp/test/e2e",
  "apps/cli/test",
  "apps/web/test",
];

const IN_PROCESS_PARTS = "unit tests of the terminal's parts inside the test process: no knightcode child";
const WEB_PARTS = "unit tests of the web client's parts inside the test process: no knightcode child";

/** Files of those folders that do not run against the binary, and why (one line each). */
export const NOT_ON_BINARY: Readonly<Record<string, string>> = {
  "packages/app-server/test/e2e/method-reference-coverage.test.ts":
    "compares the docs with the method tables: no knightcode child",
  "apps/cli/test/approval-prompt.test.ts": IN_PROCESS_PARTS,
  "apps/cli/test/args.test.ts": IN_PROCESS_PARTS,
  "apps/cli/test/code-block.test.ts": IN_PROCESS_PARTS,
  "apps/cli/test/highlight.test.ts": IN_PROCESS_PARTS,
  "apps/cli/test/markdown-block.test.ts": IN_PROCESS_PARTS,
  "apps/cli/test/markdown-split.test.ts": IN_PROCESS_PARTS,
  "apps/cli/test/simple-parts.test.ts": IN_PROCESS_PARTS,
  "apps/web/test/markdown.test.ts": WEB_PARTS,
  "apps/web/test/serve-web-client.test.ts": WEB_PARTS,
  "apps/web/test/thread-search.test.ts": WEB_PARTS,
  "apps/web/test/thread-state.test.ts": WEB_PARTS,
  "apps/web/test/tree-rows.test.ts": WEB_PARTS,
};

/** The test files the binary pass runs, relative to the checkout, sorted. */
export function binaryTestFiles(root = ROOT): string[] {
  return BINARY_SUITES.flatMap((suite) =>
    readdirSync(join(root, suite))
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => `${suite}/${name}`),
  )
    .filter((file) => NOT_ON_BINARY[file] === undefined)
    .sort();
}

if (import.meta.main) {
  const started = performance.now();
  const binary = await buildBinary();
  const built = performance.now();
  process.stderr.write(`test:binary: built ${relative(ROOT, binary)} in ${Math.round(built - started)} ms\n`);
  // `./` makes each a path, not a name filter that could match other files
  const files = binaryTestFiles().map((file) => `./${file}`);
  const child = Bun.spawn([process.execPath, "test", ...files, ...process.argv.slice(2)], {
    cwd: ROOT,
    env: { ...process.env, KNIGHTCODE_BIN: binary },
    stdio: ["inherit", "inherit", "inherit"],
  });
  const code = await child.exited;
  const seconds = ((performance.now() - built) / 1000).toFixed(1);
  process.stderr.write(
    `test:binary: ${files.length} files against ${relative(ROOT, binary)} in ${seconds} s\n`,
  );
  process.exit(code);
}
