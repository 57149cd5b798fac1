/**
 * TypeBox's compiler and value modules for tool-argument validation. From source they are
 * about 700 small files: requiring them costs ~75 ms of CPU at a process's first tool
 * call. A workspace install therefore bundles them into one CommonJS file with
 * JavaScriptCore bytecode (`scripts/prebuild-typebox.ts`, run by `postinstall`), which
 * loads in ~4 ms. Wherever that bundle is absent (the compiled binary, which carries
 * TypeBox as bytecode already; a package installed from a tarball; a failed build) the
 * package itself is required, with the same behaviour.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type * as TypeBoxCompile from "typebox/compile";
import type * as TypeBoxValue from "typebox/value";
import agentPackage from "../package.json" with { type: "json" };

/** The two entry points tool validation uses. */
export interface TypeBoxRuntime {
  Compile: typeof TypeBoxCompile.Compile;
  Value: typeof TypeBoxValue.default;
}

/** The TypeBox version this package pins (exactly, so it is the installed one). */
export const TYPEBOX_VERSION: string = agentPackage.dependencies.typebox;

/**
 * Where the workspace's `postinstall` writes the bundle for {@link TYPEBOX_VERSION}. The
 * Bun version is in the name too: the bytecode is JavaScriptCore's of the Bun that made
 * it, so after an upgrade the package is used until the next install builds a new one.
 */
export function prebuiltTypeBoxPath(): string {
  return join(
    import.meta.dir,
    "..",
    "..",
    "..",
    "node_modules",
    ".cache",
    "knightcode",
    `typebox-runtime-${TYPEBOX_VERSION}-bun-${Bun.version}.js`,
  );
}

/**
 * The bundle this process may load: the workspace's, from source; none in the compiled
 * binary, which carries TypeBox as bytecode already and whose module folder is the
 * virtual `/$bunfs/root`, so the path above would name `/node_modules/.cache/...` on the
 * host: a file anyone able to write there could have the binary `require`.
 */
function bundleToLoad(): string | undefined {
  return Bun.isStandaloneExecutable ? undefined : prebuiltTypeBoxPath();
}

/** The prebuilt bundle at `path` when it is a usable one, else undefined. */
export function prebuiltTypeBox(path = bundleToLoad()): TypeBoxRuntime | undefined {
  if (path === undefined || !existsSync(path)) return undefined;
  try {
    const bundle = require(path) as Partial<TypeBoxRuntime>;
    if (typeof bundle.Compile !== "function" || typeof bundle.Value?.Convert !== "function") return undefined;
    return { Compile: bundle.Compile, Value: bundle.Value };
  } catch {
    // a bundle Bun cannot load (written by another Bun, cut short) falls back to the package
    return undefined;
  }
}

/** TypeBox from its package (hundreds of modules from source; bytecode in the compiled binary). */
export function packageTypeBox(): TypeBoxRuntime {
  // `require` keeps validation synchronous; Bun loads the ES modules, and the bundler of
  // the compiled binary follows it like an import.
  return {
    Compile: (require("typebox/compile") as typeof TypeBoxCompile).Compile,
    Value: (require("typebox/value") as typeof TypeBoxValue).default,
  };
}

/** The runtime validation uses: the prebuilt bundle when present, else the package. */
export function loadTypeBoxRuntime(bundlePath = bundleToLoad()): TypeBoxRuntime {
  return prebuiltTypeBox(bundlePath) ?? packageTypeBox();
}
