/**
 * `postinstall`: bundles TypeBox's compiler and value modules (`typebox-runtime-entry.ts`)
 * into one CommonJS file with JavaScriptCore bytecode, where `typebox-runtime.ts` looks
 * for it. From source that turns the first tool call's ~75 ms of loading ~700 modules
 * into ~4 ms. A failed build only warns: validation then requires the package, as before.
 */
import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { prebuiltTypeBoxPath } from "../packages/agent/src/typebox-runtime.ts";

const ENTRY = join(import.meta.dir, "..", "packages", "agent", "src", "typebox-runtime-entry.ts");

/** Builds the bundle unless it is there already; returns its path. */
export async function prebuildTypeBox(target = prebuiltTypeBoxPath()): Promise<string> {
  if (existsSync(target) && existsSync(`${target}.jsc`)) return target;
  const dir = dirname(target);
  const scratch = join(dir, `.build-${process.pid}`);
  await mkdir(scratch, { recursive: true });
  try {
    const result = await Bun.build({
      entrypoints: [ENTRY],
      outdir: scratch,
      naming: basename(target),
      target: "bun",
      format: "cjs",
      bytecode: true,
    });
    if (!result.success) throw new Error(result.logs.map(String).join("\n"));
    // the bytecode first: a bundle is only used once both files are in place
    await rename(join(scratch, `${basename(target)}.jsc`), `${target}.jsc`);
    await rename(join(scratch, basename(target)), target);
    return target;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  try {
    await prebuildTypeBox();
  } catch (error) {
    process.stderr.write(
      `knightcode: prebuilding TypeBox failed (tool validation will load the package): ${String(error)}\n`,
    );
  }
}
