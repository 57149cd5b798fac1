/**
 * The packages as someone outside this workspace gets them: `bun run pack` tarballs,
 * packed from a read-only view of the checkout, installed with plain `npm install` into
 * a fresh project in a temp dir. The examples the packed READMEs show are what runs:
 * the protocol client under Node (compiled with `tsc`) and under Bun, each spawning the
 * compiled `knightcode app-server` through `node:child_process`, and the embedding
 * example (the one docs/install.md shows too) under Bun, answering an approval. Both
 * consumers type-check with `skipLibCheck: false`: the Node one with Node's lib, the Bun
 * one with Bun's usual `lib: ["ESNext"]` and `@types/bun`. The model is the testkit's
 * loopback mock, named as the default model in the agent dir's settings.
 *
 * Not part of `bun test` (npm fetches the third-party dependencies from the registry, or
 * its cache): run with `bun run test:packages`; CI runs it after the suite.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  MOCK_MODEL_ID,
  MOCK_PROVIDERS,
  type MockModelServer,
  mockDefaultAgentDir,
  startMockModelServer,
  type TempAgentDir,
  textReply,
  toolCallReply,
} from "@knightcode/testkit";
import { buildBinary, DEFAULT_OUTFILE } from "../scripts/build.ts";
import { PUBLISHED } from "../scripts/pack.ts";

const ROOT = join(import.meta.dir, "..");
const FIXTURES = join(import.meta.dir, "fixtures", "consumer");
const TSC = join(ROOT, "node_modules", ".bin", "tsc");
const MOCK_REPLY = "Hello from the mock model.";
const REFUSAL = "@knightcode/app-server runs only under Bun";

let scratch: string;
let binary: string;
let tarballs: string[];
let readOnlyPack: { code: number | null; stdout: string; stderr: string };
let project: string;
let work: string;
let env: Record<string, string>;
let mock: MockModelServer;
let agent: TempAgentDir;

/** The exact version bun.lock pins for a package, so npm installs what the workspace tests with. */
function lockedVersion(name: string): string {
  const lock = readFileSync(join(ROOT, "bun.lock"), "utf8");
  const quoted = name.replace("/", "\\/");
  const found = new RegExp(`"${quoted}": \\["${quoted}@([^"]+)"`).exec(lock);
  if (found === null) throw new Error(`${name} is not in bun.lock`);
  return found[1]!;
}

/** Runs a command; async so the mock model in this process answers while it runs. */
async function run(command: string[], cwd: string) {
  const child = Bun.spawn(command, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

function fromTarball(tarball: string, path: string): string {
  return spawnSync("tar", ["-xzOf", tarball, `package/${path}`], { encoding: "utf8" }).stdout;
}

function manifestOf(tarball: string): Record<string, unknown> {
  return JSON.parse(fromTarball(tarball, "package.json")) as Record<string, unknown>;
}

function tarballOf(name: string): string {
  const found = tarballs.find((tarball) => manifestOf(tarball).name === name);
  if (found === undefined) throw new Error(`no tarball for ${name}`);
  return found;
}

/** The first TypeScript example of a document. */
function firstExample(markdown: string): string {
  const found = /```ts\n([\s\S]*?)```/.exec(markdown);
  if (found === null) throw new Error("the document has no ```ts example");
  return found[1]!;
}

/**
 * `bun run pack` inside bubblewrap with the checkout mounted read-only (a write there
 * fails with EROFS, as on a read-only clone); the probe proves the mount is read-only.
 */
function packFromReadOnlyCheckout(out: string) {
  const script =
    'if touch "$1/.write-probe" 2>/dev/null; then echo "checkout is writable"; exit 3; fi; exec bun "$1/scripts/pack.ts" --out "$2"';
  const packed = spawnSync(
    "bwrap",
    [
      "--bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--ro-bind",
      ROOT,
      ROOT,
      "--",
      "sh",
      "-c",
      script,
      "sh",
      ROOT,
      out,
    ],
    { cwd: ROOT, env, encoding: "utf8" },
  );
  return { code: packed.status, stdout: packed.stdout, stderr: `${packed.stderr}${packed.error ?? ""}` };
}

beforeAll(async () => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), "knightcode-consumer-")));
  const home = join(scratch, "home");
  mkdirSync(home);
  mock = await startMockModelServer();
  mock.setDefault(textReply(MOCK_REPLY));
  agent = await mockDefaultAgentDir(mock);
  env = {};
  for (const [key, value] of Object.entries(process.env)) {
    const ours = key.startsWith("KNIGHTCODE_") || key === "ANTHROPIC_API_KEY" || key === "OPENAI_API_KEY";
    if (value !== undefined && !ours) env[key] = value;
  }
  // a new user's empty HOME, but npm keeps the machine's package cache (offline when warm)
  env.npm_config_cache ??= join(homedir(), ".npm");
  env.HOME = home;
  env.KNIGHTCODE_CODING_AGENT_DIR = agent.agentDir;
  // the compiled binary `bun run build` makes, built here only when it is missing
  binary = existsSync(DEFAULT_OUTFILE) ? DEFAULT_OUTFILE : await buildBinary();
  env.PATH = `${dirname(binary)}:${env.PATH ?? ""}`;
  const out = join(scratch, "tarballs");
  readOnlyPack = packFromReadOnlyCheckout(out);
  tarballs = existsSync(out) ? readdirSync(out).map((name) => join(out, name)) : [];
  project = join(scratch, "consumer");
  work = join(project, "work");
  mkdirSync(work, { recursive: true });
  for (const name of readdirSync(FIXTURES)) copyFileSync(join(FIXTURES, name), join(project, name));
  writeFileSync(join(project, "package.json"), '{ "name": "consumer", "private": true, "type": "module" }\n');
}, 120_000);

// the consumer project holds a full node_modules; removing it can take a while on a busy disk
afterAll(async () => {
  await mock?.[Symbol.asyncDispose]();
  await agent?.[Symbol.asyncDispose]();
  rmSync(scratch, { recursive: true, force: true });
}, 120_000);

describe("packed packages", () => {
  test("bun run pack works from a read-only checkout and writes only to --out", () => {
    expect(readOnlyPack).toEqual({ code: 0, stdout: expect.any(String), stderr: "" });
    expect(readOnlyPack.stdout.trim().split("\n")).toHaveLength(tarballs.length);
    expect(tarballs.length).toBeGreaterThan(PUBLISHED.length);
  });

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

  test("every README is a consumer's: it names its package and nothing that does not ship", () => {
    for (const tarball of tarballs) {
      const { name } = manifestOf(tarball) as { name: string };
      const readme = fromTarball(tarball, "README.md");
      expect([name, readme.split("\n")[0]]).toEqual([name, `# ${name}`]);
      expect([name, readme.match(/\bsrc\/|generate:schema|\bbun test\b/g)]).toEqual([name, null]);
    }
    const embedding = firstExample(fromTarball(tarballOf("@knightcode/app-server"), "README.md"));
    expect(embedding).toContain("createInProcessClient");
    // docs/install.md shows the same embedding example, so the one it shows is the one run here
    expect(readFileSync(join(ROOT, "docs", "install.md"), "utf8")).toContain(embedding);
  });

  test("the protocol package runs anywhere; the runtime packages say they need Bun", () => {
    for (const tarball of tarballs) {
      const manifest = manifestOf(tarball);
      const engines = manifest.engines as { bun?: string } | undefined;
      if (manifest.name === "@knightcode/app-server-protocol") expect(engines).toBeUndefined();
      if (manifest.name === "@knightcode/app-server") expect(engines?.bun).toMatch(/^>=\d/);
    }
  });

  test("npm install of the tarballs into a project outside the workspace", async () => {
    const installed = await run(
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
    // the examples as the installed READMEs show them
    const readme = (name: string) => readFileSync(join(project, "node_modules", name, "README.md"), "utf8");
    writeFileSync(join(project, "client.ts"), firstExample(readme("@knightcode/app-server-protocol")));
    writeFileSync(join(project, "embed.ts"), firstExample(readme("@knightcode/app-server")));
  }, 300_000);

  test("a Node consumer (Node's lib, @types/node, skipLibCheck false) type-checks and compiles", async () => {
    const compiled = await run([TSC, "-p", "tsconfig.node.json"], project);
    expect([compiled.code, compiled.stdout]).toEqual([0, ""]);
  }, 120_000);

  test('a Bun consumer (lib ["ESNext"], @types/bun, skipLibCheck false) type-checks both examples', async () => {
    const checked = await run([TSC, "-p", "tsconfig.bun.json"], project);
    expect([checked.code, checked.stdout]).toEqual([0, ""]);
  }, 120_000);

  for (const runtime of ["node", "bun"] as const) {
    test(`under ${runtime}, the README's client spawns the compiled knightcode app-server through node:child_process and completes a turn`, async () => {
      const script = runtime === "node" ? join(project, "dist", "client.js") : join(project, "client.ts");
      const before = mock.requests.length;
      const ran = await run([runtime, script], work);
      expect([ran.code, ran.stderr]).toEqual([0, expect.any(String)]);
      expect(ran.stdout).toBe(`${MOCK_REPLY}\nturn completed\nthreadNotFound\n`);
      const asked = mock.requests.slice(before);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.rawBody).toContain("What is in this folder?");
    }, 60_000);
  }

  test("under Bun, the README's embedding example answers an approval and completes a turn", async () => {
    mock.enqueue(
      toolCallReply({ name: "bash", arguments: { command: "echo approved > approved.txt" } }),
      textReply("The file is written."),
    );
    const before = mock.requests.length;
    const ran = await run(["bun", join(project, "embed.ts"), "Write the approval file."], work);
    expect([ran.code, ran.stderr]).toEqual([0, expect.any(String)]);
    expect(ran.stdout).toBe(
      [
        `default model: ${MOCK_PROVIDERS.completions}/${MOCK_MODEL_ID}`,
        'approval asked: bash {"command":"echo approved > approved.txt"}',
        "The file is written.",
        "turn completed",
        "",
      ].join("\n"),
    );
    // the accepted call ran, and its result went back to the model
    expect(readFileSync(join(work, "approved.txt"), "utf8")).toBe("approved\n");
    const asked = mock.requests.slice(before);
    expect(asked).toHaveLength(2);
    expect(asked[0]!.rawBody).toContain("Write the approval file.");
    // the embedder loaded our code from the installed tarball, not from the workspace
    const resolved = await run(
      ["bun", "-e", 'console.log(import.meta.resolve("@knightcode/app-server"))'],
      project,
    );
    expect(resolved.stdout).toContain(join(project, "node_modules", "@knightcode", "app-server", "dist"));
  }, 60_000);

  test("under Node, importing the runtime fails at the import with one sentence", async () => {
    for (const entry of ["@knightcode/app-server", "@knightcode/app-server/host"]) {
      const ran = await run(
        ["node", "--input-type=module", "-e", `import ${JSON.stringify(entry)};`],
        project,
      );
      expect([entry, ran.code]).toEqual([entry, 1]);
      expect(ran.stderr).toContain(`Error: ${REFUSAL} (https://bun.sh), not Node: run this program with bun`);
      expect(ran.stderr).not.toContain("Bun is not defined");
    }
  }, 60_000);

  test("importing @knightcode/sandbox/helper runs nothing: the importer keeps running and its stdout is its own", async () => {
    const ran = await run(
      [
        "bun",
        "-e",
        'const m = await import("@knightcode/sandbox/helper"); console.log(typeof m.runSandboxHelper);',
      ],
      project,
    );
    expect(ran).toEqual({ code: 0, stdout: "function\n", stderr: "" });
  }, 60_000);
});
