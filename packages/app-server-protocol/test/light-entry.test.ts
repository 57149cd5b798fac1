import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import {
  CLIENT_NOTIFICATION_METHODS,
  CLIENT_REQUEST_METHODS,
  SERVER_NOTIFICATION_METHODS,
  SERVER_REQUEST_METHODS,
} from "../src/index.ts";
import {
  CLIENT_NOTIFICATIONS,
  CLIENT_REQUESTS,
  SERVER_NOTIFICATIONS,
  SERVER_REQUESTS,
} from "../src/schemas.ts";

const src = join(import.meta.dir, "..", "src");

/** Module specifiers a file loads at run time: value imports and re-exports, not `import type`. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  const pattern = /^(import|export)\s+(type\s+)?(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm;
  for (const match of text.matchAll(pattern)) {
    if (match[2] !== undefined) continue;
    if (match[1] === "export" && !/\bfrom\b/.test(match[0])) continue;
    // `export { type A, type B } from` still loads the module: count it.
    found.push(match[3]!);
  }
  return found;
}

/** Every package specifier reachable from `entry` through run-time imports. */
function reachablePackages(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith(".")) stack.push(resolve(dirname(file), specifier));
      else packages.add(specifier);
    }
  }
  return packages;
}

describe("the main entry stays light", () => {
  test("importing the package loads neither TypeBox nor the ajv compiler", () => {
    const packages = [...reachablePackages(join(src, "index.ts"))];
    expect(
      packages.filter((name) => name === "typebox" || name === "ajv" || name.startsWith("typebox/")),
    ).toEqual([]);
    expect(packages.every((name) => name.startsWith("ajv/dist/runtime/"))).toBe(true);
  });

  test("the import scan sees the schemas entry's TypeBox import", () => {
    expect(reachablePackages(join(src, "schemas.ts")).has("typebox")).toBe(true);
  });

  test("the plain method lists match the method tables", () => {
    const sorted = (names: readonly string[]) => [...names].sort();
    expect(sorted(CLIENT_REQUEST_METHODS)).toEqual(sorted(Object.keys(CLIENT_REQUESTS)));
    expect(sorted(CLIENT_NOTIFICATION_METHODS)).toEqual(sorted(Object.keys(CLIENT_NOTIFICATIONS)));
    expect(sorted(SERVER_NOTIFICATION_METHODS)).toEqual(sorted(Object.keys(SERVER_NOTIFICATIONS)));
    expect(sorted(SERVER_REQUEST_METHODS)).toEqual(sorted(Object.keys(SERVER_REQUESTS)));
  });
});
