import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { E2E_TIMEOUT, MOCK_MODEL, TARGETS } from "./harness.ts";
import { holdingFd } from "./holding-fd.ts";

for (const target of TARGETS) {
  describe(`[${target.name}] shutdown`, () => {
    test(
      "a hung accepted request gets shuttingDown and the server is gone within ten seconds",
      async () => {
        await using server = await target.start();
        // a live owner holds the settings lock, so config/write waits (for 15 s) inside the server
        const owner = { pid: process.pid, host: hostname(), startedAt: Date.now(), token: "held-by-test" };
        writeFileSync(join(server.agent.agentDir, "settings.json.lock"), JSON.stringify(owner));
        const hung = server.client.request("config/write", { scope: "global", key: "theme", value: "dark" });
        const outcome = hung.then(
          () => "answered",
          (error: { code?: string }) => error.code ?? String(error),
        );
        // the request must be accepted before shutdown begins
        await server.client.request("server/diagnostics", {});
        const exitCode = await server.shutdown();
        // the lock wait lasts 15 s: only the nine-second shutdown answer can end this request
        expect(await outcome).toBe("shuttingDown");
        if (target.name === "stdio") {
          expect(exitCode).toBe(0);
          expect(server.stderr()).not.toContain("hard exit");
        }
      },
      E2E_TIMEOUT,
    );

    test(
      "threads are unloaded on shutdown: their locks are released",
      async () => {
        await using server = await target.start();
        // named, so its transcript (and lock) exist at once; an unused thread has neither
        await server.client.request("thread/start", {
          cwd: server.agent.cwd,
          model: MOCK_MODEL,
          name: "used",
        });
        const locks = () => [
          ...new Bun.Glob("**/*.lock").scanSync({ cwd: server.agent.agentDir, dot: true }),
        ];
        expect(locks().length).toBe(1);
        await server.shutdown();
        expect(locks()).toEqual([]);
      },
      E2E_TIMEOUT,
    );
  });
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(
    `[stdio] ${signal} shuts the server down and releases its threads`,
    async () => {
      const stdio = TARGETS.find((t) => t.name === "stdio")!;
      await using server = await stdio.start();
      await server.client.request("thread/start", { cwd: server.agent.cwd, model: MOCK_MODEL });
      const closed = Promise.withResolvers<void>();
      server.client.onClose(() => closed.resolve());
      server.kill!(signal);
      await closed.promise;
      expect(await server.shutdown()).toBe(0);
      expect([...new Bun.Glob("**/*.lock").scanSync({ cwd: server.agent.agentDir, dot: true })]).toEqual([]);
      expect(server.stderr()).toContain(signal);
    },
    E2E_TIMEOUT,
  );
}

test(
  "[stdio] after SIGTERM no new input is read: a later request is never answered, the accepted ones are",
  async () => {
    const stdio = TARGETS.find((t) => t.name === "stdio")!;
    await using server = await stdio.start({ env: { KNIGHTCODE_FD_PATH: holdingFd() } });
    const owner = { pid: process.pid, host: hostname(), startedAt: Date.now(), token: "held-by-test" };
    writeFileSync(join(server.agent.agentDir, "settings.json.lock"), JSON.stringify(owner));
    // keeps the server in shutdown until the nine-second answer
    const hung = server.client.request("config/write", { scope: "global", key: "theme", value: "dark" });
    const hungOutcome = hung.then(
      () => "answered",
      (error: { code?: string }) => error.code ?? String(error),
    );
    const search = server.client.request("file/search", { cwd: server.agent.cwd, query: "held" });
    const searchOutcome = search.then(
      () => "answered",
      (error: { code?: string }) => error.code ?? String(error),
    );
    await server.client.request("server/diagnostics", {});
    server.kill!("SIGTERM");
    // shutdown stops reading, then answers searches: once this arrives, input is closed
    expect(await searchOutcome).toBe("shuttingDown");
    server.sendRaw({ id: "after-sigterm", method: "server/diagnostics", params: {} });
    expect(await hungOutcome).toBe("shuttingDown");
    expect(await server.shutdown()).toBe(0);
    expect(server.received().some((m) => (m as { id?: unknown }).id === "after-sigterm")).toBe(false);
    expect(server.stderr()).not.toContain("hard exit");
  },
  E2E_TIMEOUT,
);
