import { describe, expect, test } from "bun:test";
import { createLocalOperations } from "@knightcode/agent";
import type { ExtensionFlagArg, Warning } from "@knightcode/app-server-protocol";
import type { ExtensionAPI } from "../src/api-types.ts";
import { ExtensionRunner } from "../src/extension-runner.ts";
import { createNoUI } from "../src/no-ui.ts";

function runner(flagArgs: ExtensionFlagArg[]) {
  const warnings: Warning[] = [];
  const r = new ExtensionRunner({
    threadId: "t1",
    cwd: "/project",
    mode: "desktop",
    hasUI: false,
    ui: createNoUI(),
    port: undefined,
    hookTimeoutMs: 1_000,
    warn: (w) => warnings.push(w),
    builtinToolNames: ["read", "bash"],
    toolOperations: createLocalOperations(),
    flagArgs,
  });
  return { r, warnings };
}

describe("extension flags", () => {
  test("getFlag returns the passed value (already in the factory), else the default", async () => {
    const { r } = runner([{ name: "plan" }, { name: "ssh", next: "me@host" }]);
    let api: ExtensionAPI | undefined;
    const inFactory: unknown[] = [];
    await r.load("/a.ts", (k: ExtensionAPI) => {
      api = k;
      k.registerFlag("plan", { type: "boolean", default: false });
      k.registerFlag("ssh", { type: "string", description: "remote" });
      k.registerFlag("preset", { type: "string", default: "slow" });
      k.registerFlag("quiet", { type: "boolean" });
      inFactory.push(k.getFlag("plan"), k.getFlag("ssh"));
    });
    expect(inFactory).toEqual([true, "me@host"]);
    // pi's docs write the name with its dashes, its examples without: both answer
    expect([api!.getFlag("--plan"), api!.getFlag("preset"), api!.getFlag("quiet")]).toEqual([
      true,
      "slow",
      undefined,
    ]);
    expect(r.flagList()).toEqual([
      { name: "plan", type: "boolean", path: "/a.ts", value: true },
      { name: "ssh", type: "string", description: "remote", path: "/a.ts", value: "me@host" },
      { name: "preset", type: "string", path: "/a.ts", value: "slow" },
      { name: "quiet", type: "boolean", path: "/a.ts" },
    ]);
    expect(r.passedFlags().problems).toEqual([]);
  });

  test("like pi, an extension reads only flags it registered; both registrants of one name read it", async () => {
    const { r, warnings } = runner([{ name: "plan" }]);
    const seen: Record<string, unknown> = {};
    await r.load("/a.ts", (k: ExtensionAPI) => {
      k.registerFlag("plan", { type: "boolean" });
    });
    await r.load("/b.ts", (k: ExtensionAPI) => {
      k.registerFlag("plan", { type: "boolean" });
      seen.b = k.getFlag("plan");
    });
    await r.load("/c.ts", (k: ExtensionAPI) => {
      seen.c = k.getFlag("plan");
    });
    expect(seen).toEqual({ b: true, c: undefined });
    expect(warnings.map((w) => w.message)).toEqual([
      'Flag "plan" is registered by both /a.ts and /b.ts; the first (/a.ts) wins',
    ]);
  });

  test("flags no extension registered, and values of the wrong form, are problems", async () => {
    const { r } = runner([{ name: "plan", inline: "yes" }, { name: "ssh" }, { name: "frobnicate" }]);
    await r.load("/a.ts", (k: ExtensionAPI) => {
      k.registerFlag("plan", { type: "boolean", default: false });
      k.registerFlag("ssh", { type: "string" });
    });
    expect(r.passedFlags().problems).toEqual([
      "--plan takes no value",
      "--ssh needs a value",
      "unknown option '--frobnicate'",
    ]);
    // a refused value leaves the default
    expect(r.flagList().map((f) => f.value)).toEqual([false, undefined]);
  });

  test("registerFlag without a boolean or string type fails the factory with a warning", async () => {
    const { r, warnings } = runner([]);
    const loaded = await r.load("/a.ts", (k: ExtensionAPI) => {
      k.registerFlag("odd", { type: "number" as never });
    });
    expect(loaded).toBe(false);
    expect(warnings[0]!.message).toBe(
      'Extension factory threw: registerFlag needs a name and a type of "boolean" or "string" (/a.ts)',
    );
    expect(r.flags.size).toBe(0);
  });
});
