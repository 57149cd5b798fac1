/**
 * Where installed packages live and how they get there. Each scope has its own folder:
 * the user's `<agent-dir>/packages/`, a project's `.knightcode/packages/`. npm packages
 * and tarballs are installed into `npm/` (one npm prefix per scope, so packages share
 * nothing with the user's global npm); git packages are cloned into
 * `git/<host>/<path>`. npm runs with `--ignore-scripts` unless scripts are allowed: a
 * package's install scripts are code that runs before anyone looked at it.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PackageSource } from "./package-source.ts";

/** One scope's package folder. */
export type PackageScope = "user" | "project";

/** How installs run. */
export interface InstallOptions {
  /** Run the packages' npm lifecycle scripts (off by default). */
  allowScripts?: boolean;
  /** The npm executable; `npm` on PATH by default. */
  npm?: string;
}

/** A failed npm or git run. */
export class PackageInstallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PackageInstallError";
  }
}

/** The folder of a scope's packages. */
export function scopeDir(scope: PackageScope, dirs: { agentDir: string; projectDir?: string }): string {
  if (scope === "user") return join(dirs.agentDir, "packages");
  if (dirs.projectDir === undefined)
    throw new PackageInstallError("A project package needs a project folder");
  return join(dirs.projectDir, ".knightcode", "packages");
}

async function run(argv: string[], cwd: string): Promise<string> {
  const child = Bun.spawn(argv, { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  if (code !== 0) {
    throw new PackageInstallError(
      `${argv.slice(0, 2).join(" ")} failed (exit ${code}): ${stderr.trim() || stdout.trim()}`,
    );
  }
  return stdout;
}

function npmPrefix(root: string): string {
  const prefix = join(root, "npm");
  mkdirSync(prefix, { recursive: true });
  // a package.json of its own keeps npm from climbing to a project above
  const manifest = join(prefix, "package.json");
  if (!existsSync(manifest)) writeFileSync(manifest, `${JSON.stringify({ private: true }, null, 2)}\n`);
  return prefix;
}

/** The package name inside an npm tarball (`package/package.json`). */
export async function tarballName(path: string): Promise<string> {
  const text = await run(["tar", "-xzOf", path, "package/package.json"], process.cwd());
  const name = (JSON.parse(text) as { name?: unknown }).name;
  if (typeof name !== "string") throw new PackageInstallError(`The tarball has no package name: ${path}`);
  return name;
}

/** The installed folder of a source in a scope folder, or the local folder itself. */
export async function installedDir(source: PackageSource, root: string): Promise<string> {
  switch (source.type) {
    case "npm":
      return join(root, "npm", "node_modules", source.name);
    case "tarball":
      return join(root, "npm", "node_modules", await tarballName(source.path));
    case "git":
      return join(root, "git", source.dir);
    case "local":
      return source.path;
  }
}

function npmFlags(options: InstallOptions): string[] {
  return [
    ...(options.allowScripts === true ? [] : ["--ignore-scripts"]),
    // pi packages list pi's core packages as peers: KnightCode provides them, npm must not fetch pi
    "--legacy-peer-deps",
    "--no-audit",
    "--no-fund",
    "--save-exact",
    "--loglevel=error",
  ];
}

/** Installs (or reinstalls) a source into a scope folder; returns its installed folder. */
export async function installInto(
  source: PackageSource,
  root: string,
  options: InstallOptions = {},
): Promise<string> {
  const npm = options.npm ?? "npm";
  switch (source.type) {
    case "local":
      if (!existsSync(source.path))
        throw new PackageInstallError(`No such package folder or file: ${source.path}`);
      return source.path;
    case "npm":
    case "tarball": {
      const prefix = npmPrefix(root);
      await run(
        [
          npm,
          "install",
          "--prefix",
          prefix,
          ...npmFlags(options),
          source.type === "npm" ? source.spec : source.path,
        ],
        prefix,
      );
      return installedDir(source, root);
    }
    case "git": {
      const dir = join(root, "git", source.dir);
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
      mkdirSync(join(dir, ".."), { recursive: true });
      await run(["git", "clone", "--quiet", ...(source.ref ? [] : ["--depth", "1"]), source.url, dir], root);
      if (source.ref) await run(["git", "checkout", "--quiet", source.ref], dir);
      if (existsSync(join(dir, "package.json"))) {
        await run([npm, "install", ...npmFlags(options), "--omit=dev"], dir);
      }
      return dir;
    }
  }
}

/** Removes an installed source from a scope folder (a local folder is left alone). */
export async function uninstallFrom(
  source: PackageSource,
  root: string,
  options: InstallOptions = {},
): Promise<void> {
  if (source.type === "local") return;
  if (source.type === "git") {
    rmSync(join(root, "git", source.dir), { recursive: true, force: true });
    return;
  }
  const name = source.type === "npm" ? source.name : await tarballName(source.path);
  const prefix = join(root, "npm");
  if (!existsSync(join(prefix, "node_modules", name))) return;
  await run([options.npm ?? "npm", "uninstall", "--prefix", prefix, ...npmFlags(options), name], prefix);
}

/** The version an installed folder's package.json names. */
export function installedVersion(dir: string): string | undefined {
  try {
    const version = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: unknown })
      .version;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}
