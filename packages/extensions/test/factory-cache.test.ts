import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FactoryCache } from "../src/factory-cache.ts";
import { ExtensionLoadError, provideModuleToExtensions } from "../src/module-loader.ts";

function module(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("factory cache", () => {
  test("leases are counted; unleased factories beyond the bound are evicted oldest first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-cache-"));
    const cache = new FactoryCache(2);
    const entries = [];
    for (const name of ["a", "b", "c"]) {
      entries.push(await cache.acquire(module(dir, `${name}.ts`, `export default () => "${name}";`)));
    }
    expect(cache.inactiveCount()).toBe(0);
    for (const entry of entries) cache.release(entry);
    expect(cache.inactiveCount()).toBe(2);
    // `a` was evicted: acquiring it imports it again (a new entry object)
    const again = await cache.acquire(join(dir, "a.ts"));
    expect(again).not.toBe(entries[0]);
    expect(again.factory({} as never) as unknown).toBe("a");
  });

  test("the same unchanged file is shared; a changed one is imported fresh", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-cache-"));
    const cache = new FactoryCache();
    const path = module(dir, "v.ts", 'import { tag } from "./tag.ts";\nexport default () => "one-" + tag;');
    module(dir, "tag.ts", 'export const tag = "x";');
    const first = await cache.acquire(path);
    expect(await cache.acquire(path)).toBe(first);
    expect(first.leases).toBe(2);
    module(dir, "v.ts", 'import { tag } from "./tag.ts";\nexport default () => "two-2-" + tag;');
    const second = await cache.acquire(path);
    expect(second).not.toBe(first);
    expect(second.factory({} as never) as unknown).toBe("two-2-x");
    expect(first.factory({} as never) as unknown).toBe("one-x");
  });

  test("no default export function, a syntax error and a missing file are load errors naming the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-cache-"));
    const cache = new FactoryCache();
    const cases = [
      [module(dir, "none.ts", "export const x = 1;"), "no default export function"],
      [module(dir, "syntax.ts", "export default () => {"), "failed to load"],
      [join(dir, "absent.ts"), "not found"],
    ] as const;
    for (const [path, text] of cases) {
      const error = await cache.acquire(path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExtensionLoadError);
      expect((error as ExtensionLoadError).path).toBe(path);
      expect((error as Error).message).toContain(text);
    }
  });

  test("host-provided packages resolve from a folder without node_modules; others are named as missing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kc-cache-"));
    const cache = new FactoryCache();
    const provided = await cache.acquire(
      module(dir, "typed.ts", 'import { Type } from "typebox";\nexport default () => Type.String().type;'),
    );
    expect(provided.factory({} as never) as unknown).toBe("string");
    const error = await cache
      .acquire(module(dir, "needs.ts", 'import x from "left-pad";\nexport default () => x;'))
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain('Missing dependency "left-pad"');
    // a path below a package the host provides as modules only (as the compiled binary
    // provides typebox) says which entry points it does provide
    provideModuleToExtensions("kc-provided", async () => ({ value: 1 }));
    provideModuleToExtensions("kc-provided/sub", async () => ({ value: 2 }));
    const deep = await cache
      .acquire(module(dir, "deep.ts", 'import x from "kc-provided/deep";\nexport default () => x;'))
      .catch((e: unknown) => e);
    expect((deep as Error).message).toBe(
      `"kc-provided/deep" imported by ${join(dir, "deep.ts")} is not one of the kc-provided entry points KnightCode provides (kc-provided, kc-provided/sub): import one of those, or install kc-provided next to the extension`,
    );
  });
});
