/**
 * Who may talk to a listener, over a real `knightcode app-server --listen` child: probes
 * answer without a token and reveal nothing, a missing or wrong token gets 401 and an
 * empty body, a foreign Origin or a non-loopback Host gets 403, the browser's
 * subprotocol token works and is never echoed, a unix socket is 0600, and a listener
 * that would expose itself refuses to start.
 */
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import {
  bearerSubprotocols,
  KNIGHTCODE_SUBPROTOCOL,
  WebSocketConnectError,
} from "@knightcode/app-server-protocol";
import { tempAgentDir } from "@knightcode/testkit";
import { E2E_TIMEOUT } from "../harness.ts";
import { selfSignedCertificate, spawnServer, startListener } from "./listener-harness.ts";

for (const kind of ["ws", "wss"] as const) {
  describe(`${kind}:// listener access`, () => {
    test(
      "/healthz and /readyz answer 200 without a token, with a bare body",
      async () => {
        await using server = await startListener(kind);
        // ready once the host has loaded: each answer is awaited before the next question
        let ready = await server.http("/readyz");
        while (ready.status === 503) ready = await server.http("/readyz");
        for (const path of ["/healthz", "/readyz"]) {
          const response = await server.http(path);
          expect(response.status).toBe(200);
          expect(await response.text()).toBe("ok\n");
        }
        expect((await server.http("/nothing-here")).status).toBe(404);
      },
      E2E_TIMEOUT,
    );

    test(
      "an upgrade without a token, or with a wrong one, gets 401 and nothing else",
      async () => {
        await using server = await startListener(kind);
        const missing = await server.raw("/", {}, true);
        expect(missing.status).toBe(401);
        expect(missing.text).toMatch(/content-length: 0\r\n/i);
        const wrong = await server.raw("/", { authorization: "Bearer not-the-token-at-all" }, true);
        expect(wrong.status).toBe(401);
        const wrongProtocol = await server.raw(
          "/",
          { "sec-websocket-protocol": bearerSubprotocols("nope-nope-nope-nope").join(", ") },
          true,
        );
        expect(wrongProtocol.status).toBe(401);
        let refused: unknown;
        try {
          await server.connect({ token: `${server.token}x` });
        } catch (error) {
          refused = error;
        }
        expect(refused).toBeInstanceOf(WebSocketConnectError);
        expect(String(refused)).toContain("401");
        expect(server.stderr()).not.toContain(server.token!);
      },
      E2E_TIMEOUT,
    );

    test(
      "the browser's subprotocol token is accepted and the answer names knightcode.v1 only",
      async () => {
        await using server = await startListener(kind);
        const offered = bearerSubprotocols(server.token!);
        const upgraded = await server.raw("/", { "sec-websocket-protocol": offered.join(", ") }, true);
        expect(upgraded.status).toBe(101);
        expect(upgraded.text.toLowerCase()).toContain(
          `sec-websocket-protocol: ${KNIGHTCODE_SUBPROTOCOL}\r\n`,
        );
        expect(upgraded.text).not.toContain(offered[1]!);
        const viaProtocol = await server.connect({ tokenVia: "subprotocol" });
        expect((await viaProtocol.client.request("thread/list", {})).threads).toEqual([]);
      },
      E2E_TIMEOUT,
    );

    test(
      "a foreign Origin gets 403, the listener's own origin and an allowed one go through",
      async () => {
        await using server = await startListener(kind, {
          args: ["--allow-origin", "https://app.example.test"],
        });
        const auth = { authorization: `Bearer ${server.token}` };
        const own = `${kind === "wss" ? "https" : "http"}://${new URL(server.url.replace(/^ws/, "http")).host}`;
        expect((await server.raw("/", { ...auth, origin: "https://evil.example.test" }, true)).status).toBe(
          403,
        );
        expect((await server.raw("/healthz", { origin: "https://evil.example.test" })).status).toBe(403);
        expect((await server.raw("/", { ...auth, origin: own }, true)).status).toBe(101);
        expect((await server.raw("/", { ...auth, origin: "https://app.example.test" }, true)).status).toBe(
          101,
        );
      },
      E2E_TIMEOUT,
    );

    test(
      "a loopback listener refuses a Host that is not a loopback name (DNS rebinding)",
      async () => {
        await using server = await startListener(kind);
        const port = new URL(server.url.replace(/^ws/, "http")).port;
        const auth = { authorization: `Bearer ${server.token}` };
        expect((await server.raw("/healthz", { host: `rebind.example.test:${port}` })).status).toBe(403);
        expect((await server.raw("/", { ...auth, host: `rebind.example.test:${port}` }, true)).status).toBe(
          403,
        );
        expect((await server.raw("/healthz", { host: `localhost:${port}` })).status).toBe(200);
      },
      E2E_TIMEOUT,
    );
  });
}

describe("unix:// listener access", () => {
  test(
    "the socket file is mode 0600, needs no token, and is removed at exit",
    async () => {
      const server = await startListener("unix");
      const path = server.url.slice("unix://".length);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const { client } = await server.connect();
      expect((await client.request("thread/list", {})).threads).toEqual([]);
      await server[Symbol.asyncDispose]();
      expect(() => statSync(path)).toThrow();
    },
    E2E_TIMEOUT,
  );
});

describe("listeners that would expose the server refuse to start", () => {
  test(
    "a non-loopback address without TLS and --token-file exits 2 with the reason",
    async () => {
      await using agent = await tempAgentDir();
      const { cert, key } = await selfSignedCertificate(agent.agentDir);
      const tokenFile = join(agent.agentDir, "token");
      await Bun.write(tokenFile, "a-token-of-enough-length-0123456789\n");
      for (const args of [
        ["--listen", "ws://0.0.0.0:0"],
        ["--listen", "ws://0.0.0.0:0", "--token-file", tokenFile],
        ["--listen", "wss://0.0.0.0:0", "--tls-cert", cert, "--tls-key", key],
      ]) {
        const spawned = spawnServer(agent, args);
        expect(await spawned.child.exited).toBe(2);
        await spawned.stdout;
        expect(spawned.stderr()).toContain("not a loopback address, without TLS and --token-file");
      }
    },
    E2E_TIMEOUT,
  );

  test(
    "wss:// without a certificate, and an unusable token file, exit 2",
    async () => {
      await using agent = await tempAgentDir();
      const empty = join(agent.agentDir, "empty-token");
      await Bun.write(empty, "\n");
      const cases: [string[], string][] = [
        [["--listen", "wss://127.0.0.1:0"], "wss:// needs both --tls-cert and --tls-key"],
        [["--listen", "ws://127.0.0.1:0", "--token-file", empty], "holds no token"],
        [["--listen", "ws://localhost.example:0"], "takes an IP address"],
        [["--token-file", empty], "--token-file needs --listen"],
      ];
      for (const [args, reason] of cases) {
        const spawned = spawnServer(agent, args);
        expect(await spawned.child.exited).toBe(2);
        await spawned.stdout;
        expect(spawned.stderr()).toContain(reason);
      }
    },
    E2E_TIMEOUT,
  );
});
