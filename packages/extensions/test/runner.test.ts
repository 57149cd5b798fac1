import { describe, expect, test } from "bun:test";
import { createLocalOperations } from "@knightcode/agent";
import type { Warning } from "@knightcode/app-server-protocol";
import { Type } from "typebox";
import type { ExtensionAPI } from "../src/api-types.ts";
import { ExtensionRunner, StaleExtensionError } from "../src/extension-runner.ts";
import { createNoUI } from "../src/no-ui.ts";
import { threadHooks } from "../src/thread-hooks.ts";

function runner(hookTimeoutMs = 1_000) {
  const warnings: Warning[] = [];
  const r = new ExtensionRunner({
    threadId: "t1",
    cwd: "/project",
    mode: "desktop",
    hasUI: false,
    ui: createNoUI(),
    port: undefined,
    hookTimeoutMs,
    warn: (w) => warnings.push(w),
    builtinToolNames: ["read", "bash"],
    toolOperations: createLocalOperations(),
  });
  return { r, warnings };
}

describe("extension runner", () => {
  test("input transforms chain in load order and the first handled wins", async () => {
    const { r } = runner();
    await r.load("/a.ts", (k: ExtensionAPI) => {
      k.on("input", (e) => ({ action: "transform" as const, text: `${e.text}+a` }));
    });
    await r.load("/b.ts", (k: ExtensionAPI) => {
      k.on("input", (e) =>
        e.text === "x+a"
          ? { action: "handled" as const }
          : { action: "transform" as const, text: `${e.text}+b` },
      );
    });
    const hooks = threadHooks(r, "rpc");
    expect(await hooks.input!({ text: "y", images: [], source: "start" })).toEqual({
      action: "continue",
      text: "y+a+b",
      images: [],
    });
    expect(await hooks.input!({ text: "x", images: [], source: "start" })).toEqual({ action: "handled" });
  });

  test("observers: every handler is called at once; a promise comes back only while one runs; throws and hangs are warnings", async () => {
    const { r, warnings } = runner(50);
    const calls: string[] = [];
    let release: () => void = () => {};
    await r.load("/sync.ts", (k: ExtensionAPI) => {
      k.on("message_update", (e) => {
        calls.push(`sync:${e.assistantMessageEvent.type}`);
      });
    });
    const hooks = threadHooks(r, "rpc");
    const delta = { message: {} as never, assistantMessageEvent: { type: "text_delta" } as never };
    expect(hooks.messageUpdate!(delta)).toBeUndefined();
    await r.load("/slow.ts", (k: ExtensionAPI) => {
      k.on("message_update", () => {
        calls.push("slow");
        return new Promise<undefined>((resolve) => {
          release = () => resolve(undefined);
        });
      });
    });
    await r.load("/late.ts", (k: ExtensionAPI) => {
      k.on("message_update", () => {
        calls.push("late");
      });
      k.on("tool_execution_start", () => {
        throw new Error("observer exploded");
      });
      k.on("tool_execution_end", () => new Promise<undefined>(() => {}));
    });
    const refreshed = threadHooks(r, "rpc");
    const pending = refreshed.messageUpdate!(delta);
    // the later handler did not wait for the slow one's promise
    expect(calls).toEqual(["sync:text_delta", "sync:text_delta", "slow", "late"]);
    expect(pending).toBeInstanceOf(Promise);
    release();
    await pending;
    expect(refreshed.toolExecutionStart!({ toolCallId: "c1", toolName: "bash", args: {} })).toBeUndefined();
    expect(warnings.map((w) => w.message)).toEqual([
      "Extension handler for tool_execution_start threw: observer exploded (/late.ts)",
    ]);
    await refreshed.toolExecutionEnd!({
      toolCallId: "c1",
      toolName: "bash",
      result: { content: [] },
      isError: false,
    });
    expect(warnings.at(-1)!.message).toContain("tool_execution_end did not answer within 50 ms");
  });

  test("session_before_fork / session_before_switch: the first cancel wins and names its extension", async () => {
    const { r } = runner();
    const seen: unknown[] = [];
    await r.load("/watch.ts", (k: ExtensionAPI) => {
      k.on("session_before_fork", (e) => {
        seen.push(e);
      });
      k.on("session_before_switch", (e) => {
        seen.push(e);
        return { cancel: false };
      });
    });
    await r.load("/guard.ts", (k: ExtensionAPI) => {
      k.on("session_before_fork", () => ({ cancel: true }));
    });
    await r.load("/never.ts", (k: ExtensionAPI) => {
      k.on("session_before_fork", () => {
        seen.push("never reached");
      });
    });
    const hooks = threadHooks(r, "rpc");
    expect(await hooks.sessionBeforeFork!({ entryId: "e1", position: "at" })).toEqual({
      cancel: true,
      path: "/guard.ts",
    });
    expect(await hooks.sessionBeforeSwitch!({ reason: "new" })).toBeUndefined();
    expect(seen).toEqual([
      { type: "session_before_fork", entryId: "e1", position: "at" },
      { type: "session_before_switch", reason: "new" },
    ]);
  });

  test("tool_call: the first block wins and input changes reach later handlers", async () => {
    const { r } = runner();
    const seen: unknown[] = [];
    await r.load("/a.ts", (k: ExtensionAPI) => {
      k.on("tool_call", (e) => {
        e.input.command = `safe ${e.input.command}`;
      });
    });
    await r.load("/b.ts", (k: ExtensionAPI) => {
      k.on("tool_call", (e) => {
        seen.push(e.input.command);
        return { block: true, reason: "no" };
      });
    });
    await r.load("/c.ts", (k: ExtensionAPI) => {
      k.on("tool_call", () => {
        seen.push("never");
        return { block: true, reason: "late" };
      });
    });
    const input = { command: "ls" };
    const decision = await threadHooks(r, "rpc").toolCall!({ toolCallId: "1", toolName: "bash", input });
    expect(decision).toEqual({ action: "block", reason: "no" });
    expect(seen).toEqual(["safe ls"]);
    expect(input.command).toBe("safe ls");
  });

  test("tool_result patches chain; message_end replacement must keep the role", async () => {
    const { r, warnings } = runner();
    await r.load("/a.ts", (k: ExtensionAPI) => {
      k.on("tool_result", () => ({ isError: true }));
      k.on("tool_result", (e) => ({ content: [{ type: "text" as const, text: `${e.isError}` }] }));
      k.on("message_end", () => ({ message: { role: "user" as const, content: "x", timestamp: 1 } }));
    });
    const hooks = threadHooks(r, "rpc");
    expect(
      await hooks.toolResult!({
        toolCallId: "1",
        toolName: "t",
        isError: false,
        content: [],
        details: { d: 1 },
      }),
    ).toEqual({
      content: [{ type: "text", text: "true" }],
      details: { d: 1 },
      isError: true,
    });
    const kept = await hooks.messageEnd!({
      message: {
        role: "toolResult",
        toolCallId: "1",
        toolName: "t",
        content: [],
        isError: false,
        timestamp: 1,
      },
    });
    expect(kept).toEqual({ action: "keep" });
    expect(warnings[0]!.message).toContain('keep the role "toolResult"');
  });

  test("a throwing or silent handler is a warning with its path and counts as no answer", async () => {
    const { r, warnings } = runner(50);
    await r.load("/throws.ts", (k: ExtensionAPI) => {
      k.on("before_agent_start", () => {
        throw new Error("boom");
      });
    });
    await r.load("/hangs.ts", (k: ExtensionAPI) => {
      k.on("before_agent_start", () => new Promise(() => {}));
    });
    await r.load("/answers.ts", (k: ExtensionAPI) => {
      k.on("before_agent_start", (e) => ({ systemPrompt: `${e.systemPrompt}!` }));
    });
    const answer = await threadHooks(r, "rpc").beforeAgentStart!({ turnId: "t", systemPrompt: "base" });
    expect(answer).toEqual({ systemPrompt: "base!" });
    expect(warnings.map((w) => [w.path, w.source])).toEqual([
      ["/throws.ts", "extension"],
      ["/hangs.ts", "extension"],
    ]);
    expect(warnings[1]!.message).toContain("did not answer within 50 ms");
  });

  test("a factory that throws is dropped with its registrations; a name clash keeps the first and names both", async () => {
    const { r, warnings } = runner();
    const tool = (label: string) => ({
      name: "t",
      description: label,
      parameters: Type.Object({}),
      execute: async () => ({ content: [] }),
    });
    await r.load("/first.ts", (k: ExtensionAPI) => k.registerTool(tool("first")));
    await r.load("/second.ts", (k: ExtensionAPI) => k.registerTool(tool("second")));
    const ok = await r.load("/broken.ts", (k: ExtensionAPI) => {
      k.registerCommand("c", { handler: () => {} });
      throw new Error("bad factory");
    });
    expect(ok).toBe(false);
    expect(r.tools.get("t")!.value.description).toBe("first");
    expect(r.commands.has("c")).toBe(false);
    expect(warnings[0]!.message).toContain("/first.ts");
    expect(warnings[0]!.message).toContain("/second.ts");
    expect(warnings[1]).toMatchObject({ path: "/broken.ts" });
  });

  test("after shutdown every API and ctx call throws a stale error", async () => {
    const { r } = runner();
    let api: ExtensionAPI | undefined;
    const reasons: string[] = [];
    await r.load("/a.ts", (k: ExtensionAPI) => {
      api = k;
      k.on("session_shutdown", (e) => {
        reasons.push(e.reason);
      });
    });
    await r.shutdown("reload");
    expect(reasons).toEqual(["reload"]);
    expect(() => api!.registerCommand("x", { handler: () => {} })).toThrow(StaleExtensionError);
    expect(() => api!.appendEntry("x", {})).toThrow("stale");
    expect(() => r.ctx.cwd).toThrow("stale");
  });

  test("without a UI, dialogs answer at once with their no-answer values", async () => {
    const ui = createNoUI();
    expect(await ui.confirm("t", "m")).toBe(false);
    expect(await ui.select("t", ["a"])).toBeUndefined();
    expect(await ui.input("t")).toBeUndefined();
    expect(await ui.editor("t")).toBeUndefined();
    ui.notify("nothing happens");
  });
});

test("a plugged-in UI answers dialogs and turns hasUI on; without one dialogs answer at once", async () => {
  const { FactoryCache } = await import("../src/factory-cache.ts");
  const { loadExtensionHost } = await import("../src/host-factory.ts");
  const { mkdtempSync, writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(join(tmpdir(), "kc-ui-"));
  const path = join(dir, "asks.ts");
  writeFileSync(
    path,
    'export default (k) => k.registerCommand("ask", { handler: async (_a, ctx) => { globalThis.__kcAnswer = [ctx.hasUI, await ctx.ui.confirm("t", "m")]; } });',
  );
  const options = {
    context: { threadId: "t", cwd: dir, mode: "terminal" as const, hasUI: false },
    extensionPaths: [path],
  };
  const answers = globalThis as unknown as { __kcAnswer?: unknown };
  const plain = await loadExtensionHost(options, new FactoryCache());
  await plain.runCommand!("ask", "");
  expect(answers.__kcAnswer).toEqual([false, false]);
  const ui = { ...createNoUI(), confirm: async () => true };
  const plugged = await loadExtensionHost(options, new FactoryCache(), { ui: () => ui });
  await plugged.runCommand!("ask", "");
  expect(answers.__kcAnswer).toEqual([true, true]);
});
