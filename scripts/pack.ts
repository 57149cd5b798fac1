/**
 * `bun run pack`: npm tarballs of `@knightcode/app-server-protocol` and
 * `@knightcode/app-server`, plus the workspace packages app-server depends on, that
 * install outside this workspace with plain `npm install <tarballs>`.
 *
 * Each package is staged in a temp directory and packed there with `bun pm pack`:
 * - `dist/` holds JavaScript and `.d.ts` files emitted by `tsc` from `src/` (relative
 *   `.ts` import specifiers become `.js`), so no consumer runs or type-checks our
 *   TypeScript sources;
 * - `exports` maps every entry to `{types, default}` in `dist/`; JSON exports are copied;
 * - `workspace:*` ranges become the exact version of the package they name;
 * - `files`, `license`, `version` and a README written for whoever installs it: the
 *   published packages' guides in `docs/consumers/`, and for the packages that come along
 *   a note naming the package to use instead (the repository's own `docs/*.md` describe
 *   sources that do not ship);
 * - `engines.bun` when the built code uses Bun's APIs: the protocol package runs under
 *   Node and Bun, the runtime packages (app-server and what it needs) need Bun.
 *
 * `--out <dir>` writes the tarballs there (default `dist/packages`). Prints one tarball
 * path per line on stdout.
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";

const ROOT = join(import.meta.dir, "..");
/** The packages people install; the workspace packages they depend on come along. */
export const PUBLISHED = ["@knightcode/app-server-protocol", "@knightcode/app-server"] as const;
export const DEFAULT_OUT = join(ROOT, "dist", "packages");

interface Manifest {
  name: string;
  version: string;
  description?: string;
  license?: string;
  type?: string;
  exports?: Record<string, string>;
  dependencies?: Record<string, string>;
}

interface WorkspacePackage {
  dir: string;
  manifest: Manifest;
}

function workspacePackages(): Map<string, WorkspacePackage> {
  const found = new Map<string, WorkspacePackage>();
  for (const name of readdirSync(join(ROOT, "packages"))) {
    const dir = join(ROOT, "packages", name);
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, "utf8")) as Manifest;
    found.set(manifest.name, { dir, manifest });
  }
  return found;
}

/** The published packages and every workspace package they depend on, transitively. */
export function packageClosure(all: Map<string, WorkspacePackage>): WorkspacePackage[] {
  const seen = new Map<string, WorkspacePackage>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    const pkg = all.get(name);
    if (pkg === undefined) throw new Error(`pack: ${name} is not a workspace package`);
    seen.set(name, pkg);
    for (const [dep, range] of Object.entries(pkg.manifest.dependencies ?? {})) {
      if (range.startsWith("workspace:")) visit(dep);
    }
  };
  for (const name of PUBLISHED) visit(name);
  return [...seen.values()];
}

function run(command: string[], cwd: string): string {
  const result = spawnSync(command[0]!, command.slice(1), { cwd, encoding: "utf8" });
  if (result.status !== 0) {
    const output = result.error?.message ?? `${result.stdout}${result.stderr}`;
    throw new Error(`pack: ${command.join(" ")} failed in ${cwd}:\n${output}`);
  }
  return result.stdout;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Emits JavaScript and declarations for every package's `src/` in one `tsc` run. The
 * config is written to the scratch dir, never into the checkout (which may be
 * read-only); `typeRoots` points `types: ["bun"]` at the checkout's `node_modules`.
 */
function compile(packages: WorkspacePackage[], scratch: string, outDir: string): void {
  const config = {
    extends: join(ROOT, "tsconfig.base.json"),
    compilerOptions: {
      noEmit: false,
      declaration: true,
      rewriteRelativeImportExtensions: true,
      typeRoots: [join(ROOT, "node_modules", "@types")],
      rootDir: join(ROOT, "packages"),
      outDir,
    },
    include: packages.map((pkg) => join(pkg.dir, "src")),
  };
  const configFile = join(scratch, "tsconfig.json");
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  run([join(ROOT, "node_modules", ".bin", "tsc"), "-p", configFile], scratch);
}

/** `./x.ts` → `./x.js` in the declarations (tsc rewrites JavaScript, not `.d.ts`). */
function rewriteDeclarationSpecifiers(dir: string): void {
  for (const file of filesUnder(dir).filter((f) => f.endsWith(".d.ts"))) {
    const text = readFileSync(file, "utf8");
    const rewritten = text.replace(/(["'])(\.{1,2}\/[^"']*?)\.ts\1/g, "$1$2.js$1");
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}

const USES_BUN = /\bBun\.[a-zA-Z]|from\s*["']bun(:[a-z]+)?["']|import\(\s*["']bun:/;

function stageManifest(pkg: WorkspacePackage, all: Map<string, WorkspacePackage>, distDir: string): object {
  const { manifest } = pkg;
  const exports: Record<string, string | { types: string; default: string }> = {};
  const files = ["dist"];
  for (const [key, target] of Object.entries(manifest.exports ?? { ".": "./src/index.ts" })) {
    const built = /^\.\/src\/(.+)\.ts$/.exec(target);
    if (built !== null) {
      exports[key] = { types: `./dist/${built[1]}.d.ts`, default: `./dist/${built[1]}.js` };
    } else {
      exports[key] = target;
      files.push(target.replace(/^\.\//, ""));
    }
  }
  const dependencies: Record<string, string> = {};
  for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) {
    const internal = all.get(dep);
    if (range.startsWith("workspace:")) {
      if (internal === undefined) throw new Error(`pack: ${manifest.name} depends on unknown ${dep}`);
      dependencies[dep] = internal.manifest.version;
    } else dependencies[dep] = range;
  }
  const usesBun = filesUnder(distDir)
    .filter((f) => f.endsWith(".js"))
    .some((f) => USES_BUN.test(readFileSync(f, "utf8")));
  const bunVersion = (
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { packageManager: string }
  ).packageManager.split("@")[1];
  return {
    name: manifest.name,
    version: manifest.version,
    description: manifest.description ?? `KnightCode ${manifest.name.replace("@knightcode/", "")}`,
    license: manifest.license ?? "MIT",
    type: "module",
    exports,
    types: "./dist/index.d.ts",
    files,
    dependencies,
    ...(usesBun ? { engines: { bun: `>=${bunVersion}` } } : {}),
  };
}

/** The README a package ships with (see the header). */
function consumerReadme(manifest: Manifest): string {
  const guide = join(ROOT, "docs", "consumers", `${manifest.name.replace("@knightcode/", "")}.md`);
  if (existsSync(guide)) return readFileSync(guide, "utf8");
  const description = manifest.description === undefined ? "" : `${manifest.description}.\n\n`;
  return `# ${manifest.name}

${description}Part of the KnightCode runtime: it is installed as a dependency of \`@knightcode/app-server\`,
which is the package to use (its README shows how). Its own API may change in any release.
`;
}

/** Builds and packs every package; returns the tarball paths. */
export async function packPackages(outDir: string = DEFAULT_OUT): Promise<string[]> {
  const all = workspacePackages();
  const packages = packageClosure(all);
  const scratch = mkdtempSync(join(tmpdir(), "knightcode-pack-"));
  try {
    const compiled = join(scratch, "tsc-out");
    compile(packages, scratch, compiled);
    mkdirSync(outDir, { recursive: true });
    const tarballs: string[] = [];
    for (const pkg of packages) {
      const short = basename(pkg.dir);
      const stage = join(scratch, "stage", short);
      const dist = join(stage, "dist");
      cpSync(join(compiled, short, "src"), dist, { recursive: true });
      rewriteDeclarationSpecifiers(dist);
      for (const target of Object.values(pkg.manifest.exports ?? {})) {
        if (target.endsWith(".ts")) continue;
        mkdirSync(dirname(join(stage, target)), { recursive: true });
        copyFileSync(join(pkg.dir, target), join(stage, target));
      }
      writeFileSync(
        join(stage, "package.json"),
        `${JSON.stringify(stageManifest(pkg, all, dist), null, 2)}\n`,
      );
      copyFileSync(join(ROOT, "LICENSE"), join(stage, "LICENSE"));
      writeFileSync(join(stage, "README.md"), consumerReadme(pkg.manifest));
      const before = new Set(readdirSync(outDir));
      run(["bun", "pm", "pack", "--destination", outDir, "--quiet"], stage);
      const made = readdirSync(outDir).filter((name) => name.endsWith(".tgz") && !before.has(name));
      const expected = `${pkg.manifest.name.replace("@", "").replace("/", "-")}-${pkg.manifest.version}.tgz`;
      tarballs.push(join(outDir, made[0] ?? expected));
    }
    return tarballs;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const outArg = process.argv.indexOf("--out");
  const out = outArg === -1 ? DEFAULT_OUT : resolve(process.argv[outArg + 1] ?? "");
  try {
    for (const tarball of await packPackages(out))
      process.stdout.write(`${relative(process.cwd(), tarball)}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
