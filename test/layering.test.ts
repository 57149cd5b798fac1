import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * Each package's rank in ARCHITECTURE.md's layering. A package may import only
 * packages of a strictly lower rank; testkit is for tests and never imported by sources.
 */
const RANK: Record<string, number> = {
  "@knightcode/ai": 0,
  "@knightcode/approvals": 0,
  "@knightcode/config": 0,
  "@knightcode/app-server-protocol": 0,
  "@knightcode/session-store": 1,
  "@knightcode/agent": 1,
  "@knightcode/compaction": 2,
  "@knightcode/mcp": 2,
  "@knightcode/sandbox": 2,
  "@knightcode/extensions": 3,
  "@knightcode/thread-manager": 4,
  "@knightcode/app-server": 5,
  "@knightcode/acp": 6,
  knightcode: 7,
};

const root = join(import.meta.dir, "..");

function packageDirs(): string[] {
  return ["packages", "apps"].flatMap((group) =>
    readdirSync(join(root, group)).map((name) => join(root, group, name)),
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|js|mjs)$/.test(name) ? [path] : [];
  });
}

const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)["'](@knightcode\/[a-z-]+|knightcode)(?:\/[^"']*)?["']/g;

function importsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(IMPORT)].map((m) => m[1]!);
}

describe("package layering", () => {
  for (const dir of packageDirs()) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string };
    test(`${pkg.name} imports only lower layers`, () => {
      const violations: string[] = [];
      const srcDir = join(dir, "src");
      const files = statSync(srcDir, { throwIfNoEntry: false }) ? sourceFiles(srcDir) : [];
      for (const file of files) {
        for (const target of importsOf(file)) {
          if (target === pkg.name) {
            violations.push(`${relative(root, file)} imports its own package by name (${target})`);
            continue;
          }
          const from = pkg.name === "@knightcode/testkit" ? -1 : RANK[pkg.name];
          const to = target === "@knightcode/testkit" ? Number.POSITIVE_INFINITY : RANK[target];
          if (from === undefined || to === undefined) {
            violations.push(
              `${relative(root, file)}: ${pkg.name} -> ${target} has no rank in the layering table`,
            );
          } else if (to >= from) {
            violations.push(
              `${relative(root, file)}: ${pkg.name} (rank ${from}) imports ${target} (rank ${to})`,
            );
          }
        }
      }
      expect(violations).toEqual([]);
    });
  }

  test("the rank table detects an upward import", () => {
    const sample = `import { ThreadManager } from "@knightcode/thread-manager";`;
    const found = [...sample.matchAll(IMPORT)].map((m) => m[1]);
    expect(found).toEqual(["@knightcode/thread-manager"]);
    expect(RANK["@knightcode/thread-manager"]!).toBeGreaterThan(RANK["@knightcode/session-store"]!);
  });
});
