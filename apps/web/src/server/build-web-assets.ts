/**
 * Bundles the web client with Bun's bundler: the page's HTML is the entry point, so the
 * script and stylesheet it names (with everything they import: the protocol client,
 * marked, highlight.js and its theme) come out as hashed files the HTML points at.
 * Runs from the sources; the compiled binary carries the result instead (scripts/build.ts).
 */
// the page's path on disk (`type: "file"`); this module is never part of the binary
import pagePath from "../client/index.html" with { type: "file" };
import type { WebAssets } from "./web-assets-types.ts";

/** Builds the client; throws with the bundler's messages when it fails. */
export async function buildWebAssets(): Promise<WebAssets> {
  const result = await Bun.build({
    entrypoints: [pagePath as unknown as string],
    target: "browser",
    format: "esm",
    minify: true,
    sourcemap: "none",
    naming: { entry: "[name].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
  });
  if (!result.success) {
    throw new Error(`web client build failed:\n${result.logs.map((log) => String(log)).join("\n")}`);
  }
  const files: WebAssets["files"] = {};
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, "");
    files[name === "index.html" ? "/" : `/${name}`] = { type: output.type, body: await output.text() };
  }
  if (files["/"] === undefined) throw new Error("web client build made no index.html");
  return { files };
}
