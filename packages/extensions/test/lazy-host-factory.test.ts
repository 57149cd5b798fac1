/**
 * The lazy factory gives a thread without extensions the host an empty runner gives,
 * without loading the runtime, and loads the runtime for a thread that has one.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverThreadExtensions } from "../src/discovery.ts";
import { FactoryCache } from "../src/factory-cache.ts";
import type { ExtensionHost, ExtensionHostOptions } from "../src/host-contract.ts";
import { createExtensionHostFactory, loadExtensionHost } from "../src/host-factory.ts";
import { createLazyExtensionHostFactory, emptyExtensionHost } from "../src/lazy-host-factory.ts";
import { hostOptions, hostPlace } from "./support/host-options.ts";

/** Everything a thread manager reads from a host. */
async function surface(host: ExtensionHost) {
  return {
    hooks: Object.entries(host.hooks).filter(([, hook]) => hook !== undefined),
    commands: host.commands,
    tools: host.tools?.() ?? [],
    activeTools: host.activeTools?.(),
    resources: host.resources?.(),
    providers: host.providers?.() ?? [],
    flags: host.flags?.() ?? [],
    warnings: host.warnings,
    ranCommand: await host.runCommand?.("anything", ""),
  };
}

/** A thread's empty host, both ways: from an empty runner, and without one. */
async function bothWays(options: ExtensionHostOptions) {
  const loaded = await loadExtensionHost(options, new FactoryCache());
  const empty = emptyExtensionHost(await discoverThreadExtensions(options), options.flagArgs);
  const lazy = await createLazyExtensionHostFactory()(options);
  const result = { loaded: await surface(loaded), empty: await surface(empty), lazy: await surface(lazy) };
  await Promise.all([loaded.dispose(), empty.dispose(), lazy.dispose()]);
  return result;
}

describe("lazy extension host factory", () => {
  test("a thread with nothing to load gets what an empty runner gives", async () => {
    const { loaded, empty, lazy } = await bothWays(hostOptions(hostPlace()));
    expect(empty).toEqual(loaded);
    expect(lazy).toEqual(loaded);
    expect(loaded.resources).toEqual({ skillPaths: [], promptPaths: [], themePaths: [] });
  });

  test("command-line flags with no extension to take them are the same warnings without a runner", async () => {
    const options = hostOptions(hostPlace(), {
      flagArgs: [{ name: "plan" }, { name: "ssh", inline: "me@host" }],
    });
    const { loaded, empty, lazy } = await bothWays(options);
    expect(empty).toEqual(loaded);
    expect(lazy).toEqual(loaded);
    expect(loaded.warnings.map((w) => w.message)).toEqual([
      "Extension flags: unknown option '--plan'",
      "Extension flags: unknown option '--ssh=me@host'",
    ]);
    expect(loaded.flags).toEqual([]);
  });

  test("discovery warnings and an installed package's skills and prompts are the same without a runner", async () => {
    const at = hostPlace();
    // an installed npm package with skills and prompts and no extension
    const pkg = join(at.agentDir, "packages", "npm", "node_modules", "kc-skills-only");
    mkdirSync(join(pkg, "skills", "greeting"), { recursive: true });
    mkdirSync(join(pkg, "prompts"), { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "kc-skills-only", version: "1.0.0" }));
    writeFileSync(
      join(pkg, "skills", "greeting", "SKILL.md"),
      "---\nname: greeting\ndescription: d\n---\nbody\n",
    );
    writeFileSync(join(pkg, "prompts", "hello.md"), "---\ndescription: d\n---\nhello\n");
    writeFileSync(
      join(at.agentDir, "settings.json"),
      JSON.stringify({ packages: ["npm:kc-skills-only", "npm:kc-not-installed"] }),
    );
    const options = hostOptions(at, {
      settings: { extensions: [join(at.root, "missing.ts")] },
      extensionPaths: [join(at.root, "also-missing.ts")],
    });
    const { loaded, empty, lazy } = await bothWays(options);
    expect(empty).toEqual(loaded);
    expect(lazy).toEqual(loaded);
    // the case is not trivially empty
    expect(loaded.resources?.skillPaths).toEqual([join(pkg, "skills")]);
    expect(loaded.resources?.promptPaths).toEqual([join(pkg, "prompts")]);
    expect(loaded.warnings.map((w) => w.message)).toEqual([
      expect.stringContaining("kc-not-installed"),
      expect.stringContaining("also-missing.ts"),
      expect.stringContaining("missing.ts"),
    ]);
  });

  test("a thread with an extension loads the runtime and runs it", async () => {
    const at = hostPlace();
    const path = join(at.root, "hello.ts");
    writeFileSync(
      path,
      'export default (k) => k.registerCommand("hello", { description: "says hello", handler: async () => {} });',
    );
    const factory = createLazyExtensionHostFactory({ cache: new FactoryCache() });
    const host = await factory(hostOptions(at, { extensionPaths: [path] }));
    expect(host.commands).toEqual([{ name: "hello", description: "says hello" }]);
    await host.dispose();
    // the factory is released with the host; the cache keeps it as inactive
    expect(factory.inactiveFactories()).toBe(1);
  });

  test("findsExtensions answers from discovery alone: false with nothing or only missing paths, true with an entry module, and both factories agree", async () => {
    const at = hostPlace();
    const path = join(at.root, "guard.ts");
    writeFileSync(path, "export default () => { throw new Error('discovery must not load this'); };");
    const factories = [
      createLazyExtensionHostFactory({ cache: new FactoryCache() }),
      createExtensionHostFactory({ cache: new FactoryCache() }),
    ];
    for (const factory of factories) {
      expect(await factory.findsExtensions(hostOptions(at))).toBe(false);
      expect(
        await factory.findsExtensions(hostOptions(at, { extensionPaths: [join(at.root, "missing.ts")] })),
      ).toBe(false);
      expect(await factory.findsExtensions(hostOptions(at, { extensionPaths: [path] }))).toBe(true);
      expect(await factory.findsExtensions(hostOptions(at, { settings: { extensions: [path] } }))).toBe(true);
      // an agent-dir extension is found too; nothing was loaded to answer
      mkdirSync(join(at.agentDir, "extensions"), { recursive: true });
      writeFileSync(join(at.agentDir, "extensions", "global.ts"), "export default () => {};");
      expect(await factory.findsExtensions(hostOptions(at))).toBe(true);
      rmSync(join(at.agentDir, "extensions"), { recursive: true });
      expect(factory.inactiveFactories()).toBe(0);
    }
  });
});
