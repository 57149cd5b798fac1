/**
 * Thousands of random and malformed lines through the real stdio transport and server:
 * nothing throws out of the server, and every request-shaped line gets exactly one
 * well-formed answer.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { PassThrough } from "node:stream";
import { type AppServer, createAppServer } from "../src/server.ts";
import { StdioServerTransport } from "../src/stdio-transport.ts";
import { FakeThreadManager } from "./support/fake-thread-manager.ts";
import { expectation, fuzzLine, prng } from "./support/fuzz-lines.ts";

const servers: AppServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

describe("JSON-lines fuzz", () => {
  for (const initialized of [false, true]) {
    test(`5,000 random lines ${initialized ? "after" : "before"} the handshake never crash the server and each request is answered`, async () => {
      const threads = new FakeThreadManager();
      const server = createAppServer({ threads });
      servers.push(server);
      const input = new PassThrough();
      const responses = new Map<unknown, Record<string, unknown>[]>();
      let nullIdResponses = 0;
      const { promise: finalSeen, resolve: sawFinal } = Promise.withResolvers<void>();
      const output = {
        write(chunk: string, callback: () => void) {
          for (const line of chunk.split("\n")) {
            if (line === "") continue;
            const message = JSON.parse(line) as Record<string, unknown>;
            if ("result" in message || "error" in message) {
              if (message.id === null) nullIdResponses++;
              const list = responses.get(message.id) ?? [];
              list.push(message);
              responses.set(message.id, list);
              if (message.id === "final") sawFinal();
            }
          }
          callback();
          return true;
        },
      };
      await server.connect(new StdioServerTransport({ input, output, maxLineBytes: 32 * 1024 }));
      if (initialized) {
        input.write(
          '{"id":"init","method":"initialize","params":{"clientInfo":{"name":"fuzz"}}}\n{"method":"initialized"}\n',
        );
      }
      const rand = prng(initialized ? 42 : 7);
      const expected: (string | number)[] = [];
      let nullAnswers = 0;
      for (let n = 0; n < 5000; n++) {
        const line = fuzzLine(rand, n);
        const expect_ = expectation(line, 32 * 1024);
        if (expect_.kind === "id") expected.push(expect_.id);
        if (expect_.kind === "null") nullAnswers++;
        input.write(`${line}\n`);
      }
      input.write('{"id":"final","method":"server/diagnostics","params":{}}\n');
      await finalSeen;
      await server.shutdown();
      for (const id of expected) {
        const answers = responses.get(id);
        expect(answers?.length).toBe(1);
        const answer = answers![0]!;
        if ("error" in answer) {
          const error = answer.error as { code: unknown; message: unknown };
          expect(typeof error.code).toBe("string");
          expect(typeof error.message).toBe("string");
          if (!initialized)
            expect(["notInitialized", "invalidParams", "alreadyInitialized"]).toContain(error.code as string);
        }
      }
      expect(expected.length).toBeGreaterThan(2000);
      expect(nullIdResponses).toBe(nullAnswers);
    }, 60_000);
  }
});
