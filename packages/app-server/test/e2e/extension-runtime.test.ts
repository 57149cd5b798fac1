/**
 * The extension runtime's containment through the protocol: per-thread isolation and
 * stale contexts, `/reload`, the factory cache (`inactiveFactories`, changed files load
 * fresh), project trust, and modules that would need a download.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AppServerClient } from "@knightcode/app-server-protocol";
import { E2E_TIMEOUT, startThread, TARGETS } from "./harness.ts";

const FIXTURES = join(import.meta.dir, "fixtures", "extensions");
const fixture = (name: string) => join(FIXTURES, name);

function customEntries(path: string, customType: string): unknown[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; customType?: string; data?: unknown })
    .filter((e) => e.type === "custom" && e.customType === customType)
    .map((e) => e.data);
}

async function command(client: AppServerClient, threadId: string, text: string): Promise<void> {
  const result = await client.request("turn/start", { threadId, text });
  expect(result.status).toBe("handled");
}

for (const target of TARGETS) {
  describe(`[${target.name}] extension runtime`, () => {
    test(
      "two threads with one extension: actions, state and the event bus stay in their thread; an unloaded thread's API and ctx are stale",
      async () => {
        await using server = await target.start({ extensions: [fixture("isolation-probe.ts")] });
        const a = await startThread(server.client, server.agent.cwd);
        const b = await startThread(server.client, server.agent.cwd);
        await command(server.client, a.threadId, "/mark");
        await command(server.client, a.threadId, "/mark");
        expect(customEntries(a.path, "mark")).toEqual([
          { count: 1, threadId: a.threadId },
          { count: 2, threadId: a.threadId },
        ]);
        expect(customEntries(a.path, "bus")).toEqual([{ n: 1 }, { n: 2 }]);
        // b got no input, so nothing of a's reached it: it has no transcript at all yet
        expect(existsSync(b.path)).toBe(false);
        await command(server.client, b.threadId, "/mark");
        expect(customEntries(b.path, "mark")).toEqual([{ count: 1, threadId: b.threadId }]);

        await server.client.request("thread/archive", { threadId: a.threadId });
        await command(server.client, b.threadId, `/poke ${a.threadId}`);
        const [poke] = customEntries(b.path, "poke_result") as { errors: string[] }[];
        expect(poke!.errors.length).toBe(2);
        for (const message of poke!.errors) expect(message).toContain("stale");
        const archived = await server.client.request("thread/read", { threadId: a.threadId });
        expect(customEntries(archived.thread.path!, "poked")).toEqual([]);
      },
      E2E_TIMEOUT,
    );

    test(
      "/reload shuts the extensions down and loads them again with the reload reasons",
      async () => {
        await using server = await target.start({ extensions: [fixture("lifecycle-log.ts")] });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        const { commands } = await server.client.request("command/list", { threadId });
        expect(commands.map((c) => c.name)).toContain("reload");
        await command(server.client, threadId, "/reload");
        expect(customEntries(path, "lifecycle")).toEqual([
          { event: "session_start", reason: "startup" },
          { event: "session_shutdown", reason: "reload" },
          { event: "session_start", reason: "reload" },
        ]);
        expect(server.mock.requests.length).toBe(0);
      },
      E2E_TIMEOUT,
    );

    for (const move of ["new", "fork"] as const) {
      test(
        `/${move} shuts the replaced thread's extensions down (reason ${move}, the new thread's file as targetSessionFile); the new thread's start names the old file`,
        async () => {
          await using server = await target.start({ extensions: [fixture("lifecycle-log.ts")] });
          const { threadId, path } = await startThread(server.client, server.agent.cwd);
          const result = await server.client.request("turn/start", { threadId, text: `/${move}` });
          expect(result.status).toBe("handled");
          expect(result.threadId).not.toBe(threadId);
          const fresh = (await server.client.request("thread/read", { threadId: result.threadId! })).thread;
          expect(fresh.path).not.toBe(path);
          expect(customEntries(path, "lifecycle")).toEqual([
            { event: "session_start", reason: "startup" },
            { event: "session_shutdown", reason: move, targetSessionFile: fresh.path },
            { event: "session_start", reason: "resume" },
          ]);
          // any input writes the new thread's transcript, with what its session_start logged
          await command(server.client, result.threadId!, "/reload");
          expect(customEntries(fresh.path!, "lifecycle")).toEqual([
            ...(move === "fork" ? [{ event: "session_start", reason: "startup" }] : []),
            { event: "session_start", reason: move, previousSessionFile: path },
            { event: "session_shutdown", reason: "reload" },
            { event: "session_start", reason: "reload" },
          ]);
        },
        E2E_TIMEOUT,
      );
    }

    test(
      "unloading releases a thread's factory leases (inactiveFactories); a changed file loads fresh for the next thread",
      async () => {
        const dir = mkdtempSync(join(tmpdir(), "kc-ext-cache-"));
        const file = join(dir, "versioned.ts");
        copyFileSync(fixture("versioned.ts"), file);
        await using server = await target.start({ extensions: [file] });
        const first = await startThread(server.client, server.agent.cwd);
        await command(server.client, first.threadId, "/version");
        expect(customEntries(first.path, "version")).toEqual([{ version: "one" }]);
        const leased = (await server.client.request("server/diagnostics", {})).inactiveFactories;
        await server.client.request("thread/archive", { threadId: first.threadId });
        const released = (await server.client.request("server/diagnostics", {})).inactiveFactories;
        expect(released).toBe(leased + 1);

        writeFileSync(file, readFileSync(file, "utf8").replace('VERSION = "one"', 'VERSION = "two-2"'));
        const second = await startThread(server.client, server.agent.cwd);
        await command(server.client, second.threadId, "/version");
        expect(customEntries(second.path, "version")).toEqual([{ version: "two-2" }]);
      },
      E2E_TIMEOUT,
    );

    test(
      "project extensions load only once the project is trusted",
      async () => {
        await using server = await target.start();
        const project = server.agent.cwd;
        mkdirSync(join(project, ".knightcode", "extensions"), { recursive: true });
        copyFileSync(fixture("project-writer.ts"), join(project, ".knightcode", "extensions", "writer.ts"));
        const marker = join(project, "project-extension-ran.txt");
        const untrusted = await startThread(server.client, project);
        expect(untrusted.warnings.some((w) => w.source === "trust")).toBe(true);
        expect(existsSync(marker)).toBe(false);
        await server.client.request("project/trust/set", { cwd: project, trusted: false });
        await startThread(server.client, project);
        expect(existsSync(marker)).toBe(false);
        await server.client.request("project/trust/set", { cwd: project, trusted: true });
        await startThread(server.client, project);
        expect(existsSync(marker)).toBe(true);
      },
      E2E_TIMEOUT,
    );

    test(
      "a dependency missing beside the extension is a load error naming it; nothing is downloaded",
      async () => {
        const dir = mkdtempSync(join(tmpdir(), "kc-ext-nodeps-"));
        const file = join(dir, "needs-a-package.ts");
        writeFileSync(file, 'import isOdd from "is-odd";\nexport default function () {\n  isOdd(1);\n}\n');
        await using server = await target.start({ extensions: [file] });
        const { warnings } = await startThread(server.client, server.agent.cwd);
        const warning = warnings.find((w) => w.path === file);
        expect(warning?.source).toBe("extension");
        expect(warning?.message).toContain('Missing dependency "is-odd"');
        expect(existsSync(join(dir, "node_modules"))).toBe(false);
      },
      E2E_TIMEOUT,
    );
  });
}
