import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

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
  // the browser client: only the protocol's typed client below it
  "@knightcode/web": 1,
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

/** Imports of files inside the same package: `./x.ts`, `../y/z.ts`, type-only ones included. */
const RELATIVE = /(?:from\s+|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g;

function relativeImportsOf(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(RELATIVE)].map((m) => resolve(dirname(file), m[1]!));
}

/** One import circle of the graph (its files in order, the first repeated at the end), or undefined. */
function findCircle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") return [...path.slice(path.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    if (state.get(node) !== undefined) continue;
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

/**
 * Lazily loading the package's own entry is the package handing itself to what it hosts
 * (extensions import `@knightcode/extensions` as a host module): the entry is evaluated
 * on demand, never while the loader itself is, so that one edge closes no circle.
 */
const SELF_PROVISION = /import\(\s*["']\.\/index\.ts["']\s*\)/g;

function importGraph(srcDir: string): Map<string, string[]> {
  const files = statSync(srcDir, { throwIfNoEntry: false }) ? sourceFiles(srcDir) : [];
  const entry = join(srcDir, "index.ts");
  return new Map(
    files.map((file) => {
      const selfProvides = dirname(file) === srcDir && SELF_PROVISION.test(readFileSync(file, "utf8"));
      SELF_PROVISION.lastIndex = 0;
      const targets = relativeImportsOf(file);
      return [file, selfProvides ? targets.filter((t) => t !== entry) : targets];
    }),
  );
}

describe("no import circle inside a package", () => {
  for (const dir of packageDirs()) {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string };
    test(`${pkg.name} has no import circle, counting type imports`, () => {
      const circle = findCircle(importGraph(join(dir, "src")));
      expect(circle?.map((file) => relative(dir, file)).join(" -> ")).toBeUndefined();
    });
  }

  test("the circle finder finds a circle closed by a type import, and none in a chain", () => {
    const root = "/p/src";
    const circle = new Map([
      [`${root}/a.ts`, [`${root}/b.ts`]],
      [`${root}/b.ts`, [`${root}/c.ts`]],
      [`${root}/c.ts`, [`${root}/a.ts`]],
    ]);
    expect(findCircle(circle)).toEqual([`${root}/a.ts`, `${root}/b.ts`, `${root}/c.ts`, `${root}/a.ts`]);
    const chain = new Map([
      [`${root}/a.ts`, [`${root}/b.ts`, `${root}/c.ts`]],
      [`${root}/b.ts`, [`${root}/c.ts`]],
      [`${root}/c.ts`, []],
    ]);
    expect(findCircle(chain)).toBeUndefined();
    const sample = `import type { T } from "./b.ts";\nexport { x } from "../y/z.ts";`;
    expect([...sample.matchAll(RELATIVE)].map((m) => m[1])).toEqual(["./b.ts", "../y/z.ts"]);
  });
});

describe("thread-manager keeps its runtime in threads/", () => {
  test("only threads/ and thread-manager.ts import threads/thread-runtime.ts", () => {
    const srcDir = join(root, "packages", "thread-manager", "src");
    const runtime = join(srcDir, "threads", "thread-runtime.ts");
    const importers = [...importGraph(srcDir)]
      .filter(([, targets]) => targets.includes(runtime))
      .map(([file]) => relative(srcDir, file))
      .filter((file) => !file.startsWith("threads/") && file !== "thread-manager.ts");
    expect(importers).toEqual([]);
  });
});

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
