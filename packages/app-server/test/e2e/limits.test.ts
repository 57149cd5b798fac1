/**
 * Limits that exist only on a byte stream: an oversized stdin line and a client that
 * stops reading stdout. The in-memory transport carries objects, so these run on the
 * child process; the same transport code is unit-tested with injected streams.
 */
import { describe, expect, test } from "bun:test";
import { closeSync, constants, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { knightcodeArgv, mockModelsJson, startMockModelServer, tempAgentDir } from "@knightcode/testkit";
import { E2E_TIMEOUT, nextNotification, TARGETS } from "./harness.ts";

const stdio = TARGETS.find((t) => t.name === "stdio")!;

describe("[stdio] limits", () => {
  test(
    "a line over 64 MiB is dropped with a lineTooLong error notification and the connection lives on",
    async () => {
      await using server = await stdio.start();
      const error = nextNotification<{ code: string; data: { limitBytes: number } }>(server.client, "error");
      const mib = new Uint8Array(1024 * 1024).fill(0x78);
      for (let i = 0; i < 65; i++) server.writeRaw!(mib);
      server.writeRaw!("\n");
      const params = await error;
      expect(params.code).toBe("lineTooLong");
      expect(params.data.limitBytes).toBe(64 * 1024 * 1024);
      expect((await server.client.request("server/diagnostics", {})).rssBytes).toBeGreaterThan(0);
    },
    E2E_TIMEOUT,
  );

  test(
    "a client that stops reading answers is aborted at 64 MiB unread, and the server shuts down without waiting for stdin EOF",
    async () => {
      await using mock = await startMockModelServer();
      await using agent = await tempAgentDir({ models: mockModelsJson(mock) });
      // 300 files with long names: each file/search answer is tens of KiB
      for (let i = 0; i < 300; i++) writeFileSync(join(agent.cwd, `${"n".repeat(180)}-${i}.ts`), "");
      const fifo = join(agent.root, "stdout.fifo");
      Bun.spawnSync(["mkfifo", fifo]);
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        const child = Bun.spawn(knightcodeArgv(["app-server"]), {
          cwd: agent.cwd,
          env: { ...process.env, ...agent.env },
          stdin: "pipe",
          stdout: Bun.file(fifo),
          stderr: "pipe",
        });
        let stderr = "";
        const aborted = Promise.withResolvers<void>();
        void (async () => {
          for await (const chunk of child.stderr) {
            stderr += new TextDecoder().decode(chunk);
            if (stderr.includes("left unread")) aborted.resolve();
          }
        })();
        child.stdin.write(
          '{"id":0,"method":"initialize","params":{"clientInfo":{"name":"stuck"}}}\n{"method":"initialized"}\n',
        );
        const request = (id: number) =>
          `${JSON.stringify({ id, method: "file/search", params: { cwd: agent.cwd, query: "n", limit: 200 } })}\n`;
        for (let id = 1; id <= 2000; id++) child.stdin.write(request(id));
        child.stdin.flush();
        const timer = setTimeout(() => aborted.reject(new Error(`no abort; stderr: ${stderr}`)), 50_000);
        await aborted.promise;
        clearTimeout(timer);
        // stdin stays open: the abort alone ends the process, as stdin EOF would
        expect(await child.exited).toBe(0);
        expect(stderr).toContain("shutting down (unread output passed the 64 MiB limit)");
      } finally {
        closeSync(reader);
      }
    },
    E2E_TIMEOUT,
  );

  test(
    "shutdown ends the process at ten seconds even when the client stopped reading",
    async () => {
      await using mock = await startMockModelServer();
      await using agent = await tempAgentDir({ models: mockModelsJson(mock) });
      const fifo = join(agent.root, "stdout.fifo");
      Bun.spawnSync(["mkfifo", fifo]);
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        const child = Bun.spawn(knightcodeArgv(["app-server"]), {
          cwd: agent.cwd,
          env: { ...process.env, ...agent.env },
          stdin: "pipe",
          stdout: Bun.file(fifo),
          stderr: "pipe",
        });
        child.stdin.write(
          '{"id":0,"method":"initialize","params":{"clientInfo":{"name":"stuck"}}}\n{"method":"initialized"}\n',
        );
        // model/list answers are a few KiB each: about 10 MiB of answers: far more than a pipe holds, far less than the abort limit
        for (let id = 1; id <= 1500; id++)
          child.stdin.write(`{"id":${id},"method":"model/list","params":{}}\n`);
        child.stdin.write('{"id":"last","method":"server/diagnostics","params":{}}\n');
        child.stdin.flush();
        const stderr = new Response(child.stderr).text();
        child.stdin.end();
        expect(await child.exited).toBe(0);
        // the ten-second hard exit ended it, not a drained output
        expect(await stderr).toContain("hard exit");
      } finally {
        closeSync(reader);
      }
    },
    E2E_TIMEOUT,
  );

  test(
    "a client that closes its end of stdout ends the connection, not the server",
    async () => {
      await using mock = await startMockModelServer();
      await using agent = await tempAgentDir({ models: mockModelsJson(mock) });
      const child = Bun.spawn(knightcodeArgv(["app-server"]), {
        cwd: agent.cwd,
        env: { ...process.env, ...agent.env },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const closedByPeer = Promise.withResolvers<void>();
      let stderr = "";
      void (async () => {
        for await (const chunk of child.stderr) {
          stderr += new TextDecoder().decode(chunk);
          if (stderr.includes("output closed by the peer")) closedByPeer.resolve();
        }
      })();
      child.stdin.write(
        '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"x"}}}\n{"method":"initialized"}\n',
      );
      child.stdin.flush();
      const reader = child.stdout.getReader();
      await reader.read();
      await reader.cancel();
      for (let id = 2; id < 300; id++) child.stdin.write(`{"id":${id},"method":"model/list","params":{}}\n`);
      child.stdin.flush();
      await closedByPeer.promise;
      expect(child.exitCode).toBeNull();
      child.stdin.end();
      expect(await child.exited).toBe(0);
    },
    E2E_TIMEOUT,
  );
});
