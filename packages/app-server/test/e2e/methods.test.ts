import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { E2E_TIMEOUT, errorCode, MOCK_MODEL, nextNotification, TARGETS } from "./harness.ts";
import { holdingFd } from "./holding-fd.ts";

for (const target of TARGETS) {
  describe(`[${target.name}] handshake`, () => {
    test(
      "requests before the handshake are notInitialized; then initialize answers serverInfo and platform",
      async () => {
        await using server = await target.start({ skipInitialize: true });
        expect(await errorCode(server.client.request("model/list", {}))).toBe("notInitialized");
        expect(await errorCode(server.client.request("initialize", { clientInfo: {} } as never))).toBe(
          "invalidParams",
        );
        const result = await server.client.request("initialize", { clientInfo: { name: "e2e" } });
        expect(result.platform.os).toBe(process.platform as "linux");
        expect(result.platform.arch).toBe(process.arch);
        expect(typeof result.platform.homeDir).toBe("string");
        expect(await errorCode(server.client.request("model/list", {}))).toBe("notInitialized");
        await server.client.notify("initialized", {});
        expect((await server.client.request("model/list", {})).models.length).toBeGreaterThan(0);
        expect(await errorCode(server.client.request("no/such" as "model/list", {}))).toBe("methodNotFound");
        expect(await errorCode(server.client.request("initialize", { clientInfo: { name: "x" } }))).toBe(
          "alreadyInitialized",
        );
      },
      E2E_TIMEOUT,
    );

    test(
      "invalidParams carries the validator's paths",
      async () => {
        await using server = await target.start();
        try {
          await server.client.request("turn/start", { threadId: "", text: 5 } as never);
          throw new Error("expected invalidParams");
        } catch (error) {
          const e = error as { code: string; data: { errors: { path: string }[] } };
          expect(e.code).toBe("invalidParams");
          expect(e.data.errors.map((i) => i.path).sort()).toEqual(["/text", "/threadId"]);
        }
      },
      E2E_TIMEOUT,
    );
  });

  describe(`[${target.name}] method reference`, () => {
    test(
      "turn/queue/remove: threadNotFound, and removed false for an unknown queue ID",
      async () => {
        await using server = await target.start();
        const { client } = server;
        expect(await errorCode(client.request("turn/queue/remove", { threadId: "nope", queueId: "q" }))).toBe(
          "threadNotFound",
        );
        const { thread } = await client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
        expect(await client.request("turn/queue/remove", { threadId: thread.id, queueId: "q" })).toEqual({
          removed: false,
        });
      },
      E2E_TIMEOUT,
    );

    test(
      "config/read, and config/write with configConflict and invalidParams (untrusted project, no project cwd, malformed and polluting keys)",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const before = await client.request("config/read", {});
        expect(before.versions.global).toBe("none");
        const { version } = await client.request("config/write", {
          scope: "global",
          key: "theme",
          value: "dark",
          expectedVersion: "none",
        });
        const after = await client.request("config/read", {});
        expect(after.settings.theme).toBe("dark");
        expect(after.origins.theme).toBe("global");
        expect(after.versions.global).toBe(version);
        try {
          await client.request("config/write", {
            scope: "global",
            key: "theme",
            value: "light",
            expectedVersion: "none",
          });
          throw new Error("expected configConflict");
        } catch (error) {
          expect((error as { code: string }).code).toBe("configConflict");
          expect((error as { data: unknown }).data).toEqual({ version });
        }
        expect(
          await errorCode(client.request("config/write", { scope: "project", key: "theme", value: "x" })),
        ).toBe("invalidParams");
        try {
          await client.request("config/write", {
            scope: "project",
            key: "theme",
            value: "x",
            cwd: server.agent.cwd,
          });
          throw new Error("expected invalidParams");
        } catch (error) {
          expect((error as { code: string }).code).toBe("invalidParams");
          expect((error as { data: { reason: string } }).data.reason).toBe("untrusted");
        }
        for (const key of ["__proto__.polluted", "a.constructor.b", "prototype", "a..b"]) {
          expect(await errorCode(client.request("config/write", { scope: "global", key, value: 1 }))).toBe(
            "invalidParams",
          );
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      },
      E2E_TIMEOUT,
    );

    test(
      "project/trust/read and project/trust/set; invalidParams for a cwd that is not a directory",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const cwd = server.agent.cwd;
        expect(await client.request("project/trust/read", { cwd })).toEqual({
          trusted: null,
          needsTrust: false,
        });
        mkdirSync(join(cwd, ".knightcode"), { recursive: true });
        writeFileSync(join(cwd, ".knightcode", "settings.json"), '{"theme":"project"}');
        expect((await client.request("project/trust/read", { cwd })).needsTrust).toBe(true);
        expect(await client.request("project/trust/set", { cwd, trusted: true })).toEqual({});
        expect(await client.request("project/trust/read", { cwd })).toEqual({
          trusted: true,
          needsTrust: false,
        });
        const read = await client.request("config/read", { cwd });
        expect(read.settings.theme).toBe("project");
        expect(read.origins.theme).toBe("project");
        expect(
          await errorCode(
            client.request("project/trust/set", { cwd: join(cwd, "missing-dir"), trusted: true }),
          ),
        ).toBe("invalidParams");
      },
      E2E_TIMEOUT,
    );

    test(
      "file/search ranks the project's files with fd",
      async () => {
        await using server = await target.start();
        const cwd = server.agent.cwd;
        mkdirSync(join(cwd, "src", "config"), { recursive: true });
        writeFileSync(join(cwd, "src", "config", "settings.ts"), "");
        writeFileSync(join(cwd, "README.md"), "");
        const result = await server.client.request("file/search", { cwd, query: "src/config", limit: 20 });
        expect(result.truncated).toBe(false);
        expect(result.files[0]!.path).toBe("src/config/settings.ts");
        expect(result.files[0]!.indices.length).toBe(10);
      },
      E2E_TIMEOUT,
    );

    test(
      "file/search passes a cwd with spaces and quotes and a query full of shell syntax to fd as plain data",
      async () => {
        await using server = await target.start();
        const cwd = join(server.agent.root, `it's "a" $(touch pwned-cwd) dir; echo x`);
        mkdirSync(cwd);
        writeFileSync(join(cwd, "a;b $(c) `d` | e.ts"), "");
        writeFileSync(join(cwd, "plain.ts"), "");
        const queries = ["$(touch pwned)", "`touch pwned`; rm -rf ~", "| cat > pwned &", "a;b $(c)"];
        const results = [];
        for (const query of queries) results.push(await server.client.request("file/search", { cwd, query }));
        expect(results[3]!.files[0]!.path).toBe("a;b $(c) `d` | e.ts");
        // whitespace in a query is ignored; every other character is matched in order
        const best = results[3]!.files[0]!;
        expect(best.indices.map((i) => best.path[i]).join("")).toBe("a;b$(c)");
        expect(results[3]!.files[0]!.score).toBeGreaterThan(0);
        const names = [...new Bun.Glob("**/pwned*").scanSync({ cwd: server.agent.root, dot: true })];
        expect(names).toEqual([]);
        expect([...new Bun.Glob("*").scanSync({ cwd })].sort()).toEqual(["a;b $(c) `d` | e.ts", "plain.ts"]);
      },
      E2E_TIMEOUT,
    );

    test(
      "file/search without fd is toolMissing",
      async () => {
        await using server = await target.start({
          env: { KNIGHTCODE_FD_PATH: "/nonexistent/knightcode-fd" },
        });
        expect(
          await errorCode(server.client.request("file/search", { cwd: server.agent.cwd, query: "a" })),
        ).toBe("toolMissing");
      },
      E2E_TIMEOUT,
    );

    test(
      "file/search: a newer search with the same searchId supersedes the older at once",
      async () => {
        await using server = await target.start({ env: { KNIGHTCODE_FD_PATH: holdingFd() } });
        const cwd = server.agent.cwd;
        const first = server.client.request("file/search", { cwd, query: "held", searchId: "composer" });
        const second = server.client.request("file/search", { cwd, query: "held", searchId: "composer" });
        expect(await first).toEqual({ files: [], truncated: false });
        writeFileSync(join(cwd, "release"), "");
        expect((await second).files.map((f) => f.path)).toEqual(["held.ts"]);
      },
      E2E_TIMEOUT,
    );

    if (target.name === "in-process") {
      test(
        "file/search: a search from another connection with the same searchId supersedes the first",
        async () => {
          await using server = await target.start({ env: { KNIGHTCODE_FD_PATH: holdingFd() } });
          const other = await server.connect!();
          const cwd = server.agent.cwd;
          const first = server.client.request("file/search", { cwd, query: "held", searchId: "composer" });
          const second = other.request("file/search", { cwd, query: "held", searchId: "composer" });
          expect(await first).toEqual({ files: [], truncated: false });
          writeFileSync(join(cwd, "release"), "");
          expect((await second).files.map((f) => f.path)).toEqual(["held.ts"]);
        },
        E2E_TIMEOUT,
      );

      test(
        "server/diagnostics observes the shared server: a thread loaded by one connection counts on another",
        async () => {
          await using server = await target.start();
          const other = await server.connect!();
          expect((await other.request("server/diagnostics", {})).loadedThreads).toBe(0);
          await server.client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
          expect((await other.request("server/diagnostics", {})).loadedThreads).toBe(1);
        },
        E2E_TIMEOUT,
      );
    }

    test(
      "command/list for a cwd and for a thread",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const forCwd = await client.request("command/list", { cwd: server.agent.cwd });
        expect(Array.isArray(forCwd.commands)).toBe(true);
        for (const name of ["usage", "llama", "undo"]) {
          expect(forCwd.commands.some((c) => c.name === name)).toBe(false);
        }
        expect(await errorCode(client.request("command/list", { threadId: "nope" }))).toBe("threadNotFound");
        const { thread } = await client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
        expect(Array.isArray((await client.request("command/list", { threadId: thread.id })).commands)).toBe(
          true,
        );
      },
      E2E_TIMEOUT,
    );

    test(
      "thread/delete: threadNotFound, threadNotArchived, then deletion broadcast",
      async () => {
        await using server = await target.start();
        const { client } = server;
        expect(await errorCode(client.request("thread/delete", { threadId: "nope" }))).toBe("threadNotFound");
        const { thread } = await client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
        expect(await errorCode(client.request("thread/delete", { threadId: thread.id }))).toBe(
          "threadNotArchived",
        );
        expect(await client.request("thread/archive", { threadId: thread.id })).toEqual({});
        const deleted = nextNotification<{ threadId: string }>(client, "thread/deleted");
        expect(await client.request("thread/delete", { threadId: thread.id })).toEqual({});
        expect((await deleted).threadId).toBe(thread.id);
        expect(await errorCode(client.request("thread/read", { threadId: thread.id }))).toBe(
          "threadNotFound",
        );
      },
      E2E_TIMEOUT,
    );

    test(
      "server/diagnostics reports every field of the shared server",
      async () => {
        await using server = await target.start();
        await server.client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
        const d = await server.client.request("server/diagnostics", {});
        expect(Object.keys(d).sort()).toEqual([
          "heapBytes",
          "inactiveFactories",
          "listingBytesScanned",
          "listingFilesOpened",
          "loadedThreads",
          "loadingThreads",
          "payloadBytes",
          "payloadFiles",
          "rssBytes",
          "uptimeMs",
        ]);
        expect(d.loadedThreads).toBe(1);
        expect(d.rssBytes).toBeGreaterThan(0);
        expect(d.uptimeMs).toBeGreaterThan(0);
      },
      E2E_TIMEOUT,
    );
  });
}

test(
  "[stdio] --session-dir stores new sessions in that directory",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "e2e-sessions-"));
    const stdio = TARGETS.find((t) => t.name === "stdio")!;
    await using server = await stdio.start({ args: ["--session-dir", dir] });
    const { thread } = await server.client.request("thread/start", {
      cwd: server.agent.cwd,
      model: MOCK_MODEL,
      // named, so it is written at once (an unused thread has no file)
      name: "used",
    });
    expect(thread.path?.startsWith(`${dir}/`)).toBe(true);
    const files = [...new Bun.Glob("*.jsonl").scanSync({ cwd: dir })];
    expect(files.length).toBe(1);
  },
  E2E_TIMEOUT,
);

test(
  "[stdio] -e is repeatable: each path resolves against the process cwd and reaches every thread's warnings",
  async () => {
    const stdio = TARGETS.find((t) => t.name === "stdio")!;
    const project = mkdtempSync(join(tmpdir(), "e2e-ext-"));
    // a module without a default export: its load error names its path
    writeFileSync(join(project, "one.ts"), "export const notAFactory = 1;\n");
    await using server = await stdio.start({
      args: ["-e", "one.ts", "--extension", "sub/missing.ts"],
      cwd: project,
    });
    const { warnings } = await server.client.request("thread/start", {
      cwd: server.agent.cwd,
      model: MOCK_MODEL,
    });
    const extension = warnings.filter((w) => w.source === "extension");
    expect(extension.map((w) => w.path)).toEqual([
      join(project, "one.ts"),
      join(project, "sub", "missing.ts"),
    ]);
    expect(extension[0]!.message).toContain("no default export function");
    expect(extension[1]!.message).toContain("not found");
  },
  E2E_TIMEOUT,
);

for (const target of TARGETS) {
  test(
    `[${target.name}] account/read, API-key login and logout, with account/updated broadcasts`,
    async () => {
      await using server = await target.start({ env: { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" } });
      const { client } = server;
      const before = await client.request("account/read", {});
      expect(before.accounts.find((a) => a.provider === "anthropic")).toEqual({
        provider: "anthropic",
        authenticated: false,
        envVars: ["ANTHROPIC_API_KEY"],
      });
      expect(before.authFile).toBe(join(server.agent.agentDir, "auth.json"));
      expect(before.accounts.find((a) => a.provider === MOCK_MODEL.provider)).toEqual({
        provider: MOCK_MODEL.provider,
        authenticated: true,
        source: "modelsJson",
      });
      const updated = nextNotification<{ accounts: { provider: string; authenticated: boolean }[] }>(
        client,
        "account/updated",
      );
      expect(
        await client.request("account/login/apiKey", { provider: "anthropic", apiKey: "sk-test" }),
      ).toEqual({});
      expect((await updated).accounts.find((a) => a.provider === "anthropic")?.authenticated).toBe(true);
      const auth = (await Bun.file(join(server.agent.agentDir, "auth.json")).json()) as Record<
        string,
        unknown
      >;
      expect(auth.anthropic).toEqual({ type: "api_key", key: "sk-test" });
      expect((await Bun.file(join(server.agent.agentDir, "auth.json")).stat()).mode & 0o777).toBe(0o600);
      await client.request("account/logout", { provider: "anthropic" });
      const after = await client.request("account/read", {});
      expect(after.accounts.find((a) => a.provider === "anthropic")?.authenticated).toBe(false);
    },
    E2E_TIMEOUT,
  );
}

for (const target of TARGETS) {
  test(
    `[${target.name}] corrupt settings: config/read reports a settings warning, config/write is internal and leaves the file`,
    async () => {
      await using server = await target.start();
      const path = join(server.agent.agentDir, "settings.json");
      writeFileSync(path, '{"theme": "dark",\n  oops}');
      const read = await server.client.request("config/read", {});
      expect(read.errors.length).toBe(1);
      expect(read.errors[0]!.source).toBe("settings");
      expect(
        await errorCode(server.client.request("config/write", { scope: "global", key: "theme", value: "x" })),
      ).toBe("internal");
      expect(await Bun.file(path).text()).toBe('{"theme": "dark",\n  oops}');
    },
    E2E_TIMEOUT,
  );
}
