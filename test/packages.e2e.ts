/**
 * The packages as someone outside this workspace gets them: `bun run pack` tarballs,
 * installed with plain `npm install` into a fresh project in a temp dir, a client
 * type-checked and compiled with `tsc` and run under Node against the compiled
 * `knightcode app-server`, and an embedding script on `createInProcessClient` run under
 * Bun, each completing a turn on the offline demo model.
 *
 * Not part of `bun run test` (npm fetches the third-party dependencies from the
 * registry, or its cache): run with `bun run test:packages`; CI runs it after the suite.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinary } from "../scripts/build.ts";
import { PUBLISHED, packPackages } from "../scripts/pack.ts";

const ROOT = join(import.meta.dir, "..");
const FIXTURES = join(import.meta.dir, "fixtures", "consumer");
const TSC = join(ROOT, "node_modules", ".bin", "tsc");

let scratch: string;
let binary: string;
let tarballs: string[];
let project: string;
let env: Record<string, string>;

/** The exact version bun.lock pins for a package, so npm installs what the workspace tests with. */
function lockedVersion(name: string): string {
  const lock = readFileSync(join(ROOT, "bun.lock"), "utf8");
  const found = new RegExp(`"${name.replace("/", "\\/")}": \\["${name.replace("/", "\\/")}@([^"]+)"`).exec(
    lock,
  );
  if (found === null) throw new Error(`${name} is not in bun.lock`);
  return found[1]!;
}

function run(command: string[], cwd: string) {
  const result = spawnSync(command[0]!, command.slice(1), { cwd, env, encoding: "utf8" });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function manifestOf(tarball: string): Record<string, unknown> {
  const listed = spawnSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" });
  return JSON.parse(listed.stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), "knightcode-consumer-")));
  const home = join(scratch, "home");
  mkdirSync(home);
  env = {};
  for (const [key, value] of Object.entries(process.env)) {
    const ours = key.startsWith("KNIGHTCODE_") || key === "ANTHROPIC_API_KEY" || key === "OPENAI_API_KEY";
    if (value !== undefined && !ours) env[key] = value;
  }
  // a new user's empty HOME, but npm keeps the machine's package cache (offline when warm)
  env.npm_config_cache ??= join(homedir(), ".npm");
  env.HOME = home;
  binary = await buildBinary({ outfile: join(scratch, "bin", "knightcode") });
  tarballs = await packPackages(join(scratch, "tarballs"));
  project = join(scratch, "consumer");
  mkdirSync(join(project, "work"), { recursive: true });
  for (const name of readdirSync(FIXTURES)) copyFileSync(join(FIXTURES, name), join(project, name));
  writeFileSync(join(project, "package.json"), '{ "name": "consumer", "private": true, "type": "module" }\n');
}, 120_000);

// the consumer project holds a full node_modules; removing it can take a while on a busy disk
afterAll(() => rmSync(scratch, { recursive: true, force: true }), 120_000);

describe("packed packages", () => {
  test("every tarball has a version, a license, files, exports with types, and no workspace: range", () => {
    const names = tarballs.map((t) => manifestOf(t).name);
    for (const name of PUBLISHED) expect(names).toContain(name);
    for (const tarball of tarballs) {
      const manifest = manifestOf(tarball);
      expect([manifest.name, manifest.version, manifest.license]).toEqual([
        manifest.name,
        expect.stringMatching(/^\d+\.\d+\.\d+$/),
        "MIT",
      ]);
      expect(manifest.files).toContain("dist");
      expect((manifest.exports as Record<string, unknown>)["."]).toEqual({
        types: "./dist/index.d.ts",
        default: "./dist/index.js",
      });
      expect(JSON.stringify(manifest)).not.toContain("workspace:");
      const listing = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" }).stdout.split("\n");
      expect([
        manifest.name,
        listing.filter((path) => /\.ts$/.test(path) && !path.endsWith(".d.ts")),
      ]).toEqual([manifest.name, []]);
    }
  });

  test("the protocol package runs anywhere; the runtime packages say they need Bun", () => {
    for (const tarball of tarballs) {
      const manifest = manifestOf(tarball);
      const engines = manifest.engines as { bun?: string } | undefined;
      if (manifest.name === "@knightcode/app-server-protocol") expect(engines).toBeUndefined();
      if (manifest.name === "@knightcode/app-server") expect(engines?.bun).toMatch(/^>=\d/);
    }
  });

  test("npm install of the tarballs into a project outside the workspace", () => {
    const installed = run(
      [
        "npm",
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        ...tarballs,
        `@types/node@${lockedVersion("@types/node")}`,
        `@types/bun@${lockedVersion("@types/bun")}`,
      ],
      project,
    );
    expect([installed.code, installed.stderr]).toEqual([0, expect.any(String)]);
    const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies)).toContain("@knightcode/app-server");
  }, 300_000);

  test("tsc type-checks and compiles the Node client against the protocol package's declarations", () => {
    const compiled = run([TSC, "-p", "tsconfig.json"], project);
    expect([compiled.code, compiled.stdout]).toEqual([0, ""]);
  }, 120_000);

  test("tsc type-checks the embedding script against the app-server package's declarations", () => {
    const checked = run([TSC, "-p", "tsconfig.embed.json"], project);
    expect([checked.code, checked.stdout]).toEqual([0, ""]);
  }, 120_000);

  test("under Node, the client drives the compiled knightcode app-server through a turn", () => {
    const ran = run(["node", join(project, "dist", "client.js"), binary, join(project, "work")], project);
    expect([ran.code, ran.stderr]).toEqual([0, expect.any(String)]);
    const summary = JSON.parse(ran.stdout.trim().split("\n").at(-1)!);
    expect(summary).toEqual({
      runtime: expect.stringMatching(/^node v\d+/),
      server: "knightcode-app-server",
      model: { provider: "demo", id: "demo" },
      status: "completed",
      reply: expect.stringContaining('You said: "Hello from Node"'),
      errorCode: "threadNotFound",
      requestSchemas: expect.any(Number),
      exitCode: 0,
    });
    expect(summary.requestSchemas).toBeGreaterThan(20);
  }, 60_000);

  test("under Bun, createInProcessClient from the installed app-server completes a turn", () => {
    const ran = run(["bun", join(project, "embed.ts"), join(project, "work")], project);
    expect([ran.code, ran.stderr]).toEqual([0, expect.any(String)]);
    const summary = JSON.parse(ran.stdout.trim().split("\n").at(-1)!);
    expect(summary).toEqual({
      runtime: expect.stringMatching(/^bun \d/),
      model: { provider: "demo", id: "demo" },
      status: "completed",
      reply: expect.stringContaining('You said: "Hello from an embedder"'),
      listed: expect.any(Number),
    });
    // the embedder loaded our code from the installed tarball, not from the workspace
    const resolved = run(
      ["bun", "-e", 'console.log(import.meta.resolve("@knightcode/app-server"))'],
      project,
    );
    expect(resolved.stdout).toContain(join(project, "node_modules", "@knightcode", "app-server", "dist"));
  }, 60_000);
});
