/**
 * The extension entries of an installed package: its `package.json` `knightcode` (or
 * pi's `pi`) key lists `extensions` as files, folders or globs relative to the package
 * (`!pattern` excludes), else the convention folder `extensions/`; a folder contributes
 * its `*.ts`/`*.js` files and `<sub>/index.ts|js`. A package that is a single file is
 * its own entry; a package's main module is not an extension unless listed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const MODULE_FILE = /\.(ts|js|mts|mjs)$/;
const INDEX_FILES = ["index.ts", "index.js", "index.mts", "index.mjs"];

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** The modules of an extensions folder, one level deep, sorted. */
function folderModules(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(dir, name);
    if (isDirectory(path)) {
      const index = INDEX_FILES.map((file) => join(path, file)).find((file) => existsSync(file));
      if (index) found.push(index);
    } else if (MODULE_FILE.test(name) && !name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

/** The resources a package's manifest names. */
export interface PackageManifest {
  extensions?: unknown;
  skills?: unknown;
  prompts?: unknown;
  themes?: unknown;
}

/** The `knightcode` or `pi` section of a package.json, when there is one. */
export function readManifest(dir: string): PackageManifest | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      knightcode?: PackageManifest;
      pi?: PackageManifest;
    };
    return pkg.knightcode ?? pkg.pi;
  } catch {
    return undefined;
  }
}

const GLOB_CHARS = /[*?[\]{}]/;

/** Files a list of patterns names, in order, without the `!` exclusions. */
function expandPatterns(dir: string, patterns: string[]): string[] {
  const included: string[] = [];
  const excluded = new Set<string>();
  for (const pattern of patterns) {
    const negated = pattern.startsWith("!");
    const body = negated ? pattern.slice(1) : pattern.replace(/^\+/, "");
    let files: string[];
    if (GLOB_CHARS.test(body)) {
      files = [...new Bun.Glob(body.replace(/^\.\//, "")).scanSync({ cwd: dir, onlyFiles: true })]
        .sort()
        .map((file) => resolve(dir, file));
    } else {
      const path = resolve(dir, body);
      files = isDirectory(path) ? folderModules(path) : existsSync(path) ? [path] : [];
    }
    for (const file of files) {
      if (negated) excluded.add(file);
      else if (!included.includes(file)) included.push(file);
    }
  }
  return included.filter((file) => !excluded.has(file) && !relative(dir, file).startsWith(".."));
}

/** The extension entry files of a package folder (or the file itself). */
export function packageExtensionEntries(path: string): string[] {
  if (!isDirectory(path)) return existsSync(path) ? [path] : [];
  const listed = readManifest(path)?.extensions;
  if (Array.isArray(listed)) {
    return expandPatterns(
      path,
      listed.filter((p): p is string => typeof p === "string"),
    );
  }
  // without a manifest only the convention folder counts: a package's main module is not an extension
  const convention = join(path, "extensions");
  return isDirectory(convention) ? folderModules(convention) : [];
}

/**
 * The skill or prompt-template paths of a package folder: the manifest's list (files,
 * folders or globs; `!` exclusions apply to files), else the convention folder.
 */
export function packageResourcePaths(path: string, kind: "skills" | "prompts" | "themes"): string[] {
  if (!isDirectory(path)) return [];
  const listed = readManifest(path)?.[kind];
  if (Array.isArray(listed)) {
    const paths: string[] = [];
    const patterns = listed.filter((p): p is string => typeof p === "string");
    for (const pattern of patterns.filter((p) => !p.startsWith("!"))) {
      const body = pattern.replace(/^\+/, "");
      if (GLOB_CHARS.test(body))
        paths.push(...expandPatterns(path, [body, ...patterns.filter((p) => p.startsWith("!"))]));
      else if (existsSync(resolve(path, body))) paths.push(resolve(path, body));
    }
    return paths;
  }
  const convention = join(path, kind);
  return isDirectory(convention) ? [convention] : [];
}
