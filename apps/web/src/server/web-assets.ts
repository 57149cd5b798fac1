/**
 * Where the web client's files come from. From the sources they are bundled on first
 * use (a few hundred milliseconds, once per process). The compiled binary replaces this
 * very module with one that holds the files bundled at build time (`embeddedAssetsModule`,
 * applied by scripts/build.ts), so the binary neither bundles at run time nor reads a file.
 */
import type { WebAssets } from "./web-assets-types.ts";

let assets: Promise<WebAssets> | undefined;

/** The client's files. */
export function loadWebAssets(): Promise<WebAssets> {
  assets ??= import("./build-web-assets.ts").then(({ buildWebAssets }) => buildWebAssets());
  return assets;
}
