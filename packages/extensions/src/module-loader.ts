/**
 * Loads extension modules with Bun's own loader (TypeScript included), without ever
 * downloading code. Bun auto-installs a bare import from the registry when no
 * `node_modules` sits above the importing file; the runtime therefore reads every
 * extension file itself (a Bun `onLoad` plugin keyed by a query marker) and rewrites its
 * imports to absolute paths before Bun resolves them:
 * - packages the host provides (`@knightcode/extensions`, `typebox`, and any alias an
 *   embedder adds) resolve to the host's copy: the modules themselves, handed over as
 *   virtual `knightcode-host:` modules (`provideModuleToExtensions`), which works in the
 *   compiled binary too, where the host's packages are not files on disk; names provided
 *   by directory (`provideToExtensions`) resolve to the files there;
 * - other bare imports must exist in the extension's nearest `node_modules`; a missing
 *   one is a load error naming it;
 * - a package marked with `preferShippedCopy` resolves to the extension's own copy when the
 *   extension's package ships one in its `node_modules`;
 * - relative imports within the extension's own package keep the marker, so its files are
 *   read the same way (also when the package itself is installed in a `node_modules`).
 * The marker also carries a generation, so a changed entry file loads fresh.
 */
import { existsSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join } from "node:path";

const MARKER = "kc-ext";
const MARKED = new RegExp(`[?&]${MARKER}=`);

/** A module could not be loaded: a missing dependency, a syntax error, no factory. */
export class ExtensionLoadError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = "ExtensionLoadError";
  }
}

/** Packages the host provides to every extension: name -> directory to resolve it from. */
const providedPackages = new Map<string, string>();

/** Module specifiers the host hands over as its own loaded module: specifier -> loader. */
const providedModules = new Map<string, () => Promise<Record<string, unknown>>>();
const HOST_MODULE = "knightcode-host:";

/** Provided packages an extension's own shipped copy overrides. */
const shippedCopyWins = new Set<string>();

let pluginInstalled = false;

/** Lets an extension whose package ships its own copy of `name` use that copy. */
export function preferShippedCopy(name: string): void {
  shippedCopyWins.add(name);
}

/** Whether the package the file at `dir` belongs to has `pkg` in its own `node_modules`. */
function shipsOwnCopy(dir: string, pkg: string): boolean {
  let current = dir;
  for (;;) {
    if (existsSync(join(current, "package.json"))) return existsSync(join(current, "node_modules", pkg));
    const parent = dirname(current);
    if (parent === current) return false;
    current = parent;
  }
}

/**
 * Makes `name` (and its subpaths) resolve to the host's copy, resolved from `fromDir`,
 * in every extension. The pi compatibility layer adds its package names here.
 */
export function provideToExtensions(name: string, fromDir: string): void {
  providedPackages.set(name, fromDir);
}

/**
 * Makes the exact specifier `specifier` import the host's module that `load` returns
 * (an `import()` with a literal specifier, so the compiled binary's bundle carries it).
 * Loaded on the first import by an extension.
 */
export function provideModuleToExtensions(
  specifier: string,
  load: () => Promise<Record<string, unknown>>,
): void {
  providedModules.set(specifier, load);
  if (pluginInstalled) registerHostModule(specifier, load);
}

function registerHostModule(specifier: string, load: () => Promise<Record<string, unknown>>): void {
  Bun.plugin({
    name: `knightcode-host-module ${specifier}`,
    setup(build) {
      build.module(`${HOST_MODULE}${specifier}`, async () => ({ exports: await load(), loader: "object" }));
    },
  });
}

provideModuleToExtensions("@knightcode/extensions", () => import("./index.ts"));
provideModuleToExtensions("typebox", () => import("typebox"));
provideModuleToExtensions("typebox/compile", () => import("typebox/compile"));
provideModuleToExtensions("typebox/error", () => import("typebox/error"));
provideModuleToExtensions("typebox/format", () => import("typebox/format"));
provideModuleToExtensions("typebox/guard", () => import("typebox/guard"));
provideModuleToExtensions("typebox/schema", () => import("typebox/schema"));
provideModuleToExtensions("typebox/system", () => import("typebox/system"));
provideModuleToExtensions("typebox/type", () => import("typebox/type"));
provideModuleToExtensions("typebox/value", () => import("typebox/value"));
// Deeper paths into the host's copy resolve from this package's folder, from source only:
// in the compiled binary that folder is the virtual `/$bunfs/root` and the host's packages
// are bytecode inside it, not files, so there only the entry points above are provided.
if (!Bun.isStandaloneExecutable) {
  provideToExtensions("@knightcode/extensions", import.meta.dir);
  provideToExtensions("typebox", import.meta.dir);
}

function loaderFor(path: string): "ts" | "tsx" | "js" | "jsx" | "json" {
  if (path.endsWith(".tsx")) return "tsx";
  if (path.endsWith(".jsx")) return "jsx";
  if (path.endsWith(".json")) return "json";
  if (/\.(c|m)?ts$/.test(path)) return "ts";
  return "js";
}

/** The package name of a bare specifier (`@scope/name/sub` -> `@scope/name`). */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

function providedFor(specifier: string): string | undefined {
  for (const [name, fromDir] of providedPackages) {
    if (specifier === name || specifier.startsWith(`${name}/`)) return fromDir;
  }
  return undefined;
}

/** The nearest `node_modules/<pkg>` above `dir`, or undefined. */
function nearestPackage(dir: string, pkg: string): string | undefined {
  let current = dir;
  for (;;) {
    const candidate = join(current, "node_modules", pkg);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * The installed package a path lies in (`…/node_modules/<pkg>/`), or "" outside any.
 * An extension installed as a package lives in `node_modules` itself: its own files share
 * its prefix and are read like any extension file, its dependencies do not.
 */
function installedPackagePrefix(path: string): string {
  const normalized = path.replaceAll("\\", "/");
  const at = normalized.lastIndexOf("/node_modules/");
  if (at === -1) return "";
  const rest = normalized.slice(at + "/node_modules/".length).split("/");
  const name = rest[0]?.startsWith("@") ? rest.slice(0, 2).join("/") : rest[0];
  return `${normalized.slice(0, at)}/node_modules/${name}/`;
}

/** Where one import of an extension file goes, or a load error. */
function rewriteSpecifier(specifier: string, file: string, generation: string): string {
  if (specifier.startsWith("node:") || specifier === "bun" || specifier.startsWith("bun:")) return specifier;
  if (isBuiltin(specifier)) return specifier;
  const dir = dirname(file);
  if (specifier.startsWith(".") || specifier.startsWith("/")) {
    let resolved: string;
    try {
      resolved = Bun.resolveSync(specifier, dir);
    } catch {
      throw new ExtensionLoadError(`Cannot find module "${specifier}" imported by ${file}`, file);
    }
    return installedPackagePrefix(resolved) === installedPackagePrefix(file)
      ? `${resolved}?${MARKER}=${generation}`
      : resolved;
  }
  const pkg = packageName(specifier);
  const shipped = shippedCopyWins.has(pkg) && shipsOwnCopy(dir, pkg);
  if (!shipped && providedModules.has(specifier)) return `${HOST_MODULE}${specifier}`;
  const provided = shipped ? undefined : providedFor(specifier);
  if (provided !== undefined) return Bun.resolveSync(specifier, provided);
  if (nearestPackage(dir, pkg) === undefined) {
    const entries = [...providedModules.keys()].filter((name) => packageName(name) === pkg);
    throw new ExtensionLoadError(
      entries.length > 0
        ? `"${specifier}" imported by ${file} is not one of the ${pkg} entry points KnightCode provides (${entries.join(", ")}): import one of those, or install ${pkg} next to the extension`
        : `Missing dependency "${pkg}" imported by ${file}: install the extension's dependencies next to it`,
      file,
    );
  }
  try {
    return Bun.resolveSync(specifier, dir);
  } catch (error) {
    throw new ExtensionLoadError(
      `Cannot resolve "${specifier}" imported by ${file}: ${(error as Error).message}`,
      file,
    );
  }
}

// `from "x"`, `import "x"`, `import("x")`, `require("x")` with a plain string literal.
const SPECIFIER_SITES = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(["'])([^"'\r\n]+)\2/g;

/** An extension file's source with every import pointing where `rewriteSpecifier` says. */
function rewriteSource(source: string, file: string, generation: string): string {
  const loader = loaderFor(file);
  if (loader === "json") return source;
  const scanned = new Bun.Transpiler({ loader }).scanImports(source);
  const targets = new Map<string, string>();
  for (const { path } of scanned) {
    if (!targets.has(path)) targets.set(path, rewriteSpecifier(path, file, generation));
  }
  return source.replace(SPECIFIER_SITES, (whole, site: string, _quote: string, specifier: string) => {
    const target = targets.get(specifier);
    return target === undefined ? whole : `${site}${JSON.stringify(target)}`;
  });
}

function installPlugin(): void {
  if (pluginInstalled) return;
  pluginInstalled = true;
  for (const [specifier, load] of providedModules) registerHostModule(specifier, load);
  Bun.plugin({
    name: "knightcode-extensions",
    setup(build) {
      build.onLoad({ filter: MARKED }, (args) => {
        const [file, query = ""] = args.path.split("?");
        const generation = new URLSearchParams(query).get(MARKER) ?? "0";
        const source = readFileSync(file!, "utf8");
        return { contents: rewriteSource(source, file!, generation), loader: loaderFor(file!) };
      });
    },
  });
}

/**
 * Imports an extension entry module under `generation` (a new generation reads the files
 * again) and returns its default export.
 */
export async function importExtension(path: string, generation: string): Promise<unknown> {
  installPlugin();
  let module: { default?: unknown };
  try {
    module = (await import(`${path}?${MARKER}=${generation}`)) as { default?: unknown };
  } catch (error) {
    if (error instanceof ExtensionLoadError) throw error;
    throw new ExtensionLoadError(
      `Extension failed to load: ${(error as Error)?.message ?? String(error)}`,
      path,
    );
  }
  return module.default;
}
