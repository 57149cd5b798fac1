/**
 * StreamTransport over real child processes' pipes, from both spawn APIs a client may
 * use under Bun: `Bun.spawn` (stdin a `FileSink`) and `node:child_process` (stdin a Node
 * writable, whose `flush` property under Bun is `false`, not a method).
 */
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { Readable } from "node:stream";
import type { Message } from "../src/index.ts";
import { StreamTransport } from "../src/index.ts";

/** Sends one message through `cat` and resolves with what comes back. */
async function echoThroughCat(transport: StreamTransport): Promise<Message> {
  const received = Promise.withResolvers<Message>();
  transport.onmessage = received.resolve;
  transport.onerror = received.reject;
  await transport.start();
  await transport.send({ id: 1, method: "ping", params: { text: "héllo" } });
  const message = await received.promise;
  await transport.close();
  return message;
}

describe("StreamTransport", () => {
  test("a node:child_process child's stdin and stdout carry messages both ways", async () => {
    const child = spawn("cat", [], { stdio: ["pipe", "pipe", "inherit"] });
    // the property that broke `flush?.()`: present, and not a function
    expect(typeof (child.stdin as unknown as { flush?: unknown }).flush).not.toBe("function");
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const transport = new StreamTransport({ readable: child.stdout, writable: child.stdin });
    expect(await echoThroughCat(transport)).toEqual({ id: 1, method: "ping", params: { text: "héllo" } });
    expect(await exited).toBe(0);
  });

  test("a Bun.spawn child's FileSink stdin is flushed after each message", async () => {
    const child = Bun.spawn(["cat"], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
    const transport = new StreamTransport({ readable: child.stdout, writable: child.stdin });
    expect(await echoThroughCat(transport)).toEqual({ id: 1, method: "ping", params: { text: "héllo" } });
    expect(await child.exited).toBe(0);
  });

  test("a sink whose flush is a method has it called once per message", async () => {
    const written: string[] = [];
    let flushes = 0;
    const transport = new StreamTransport({
      readable: Readable.from([]),
      writable: {
        write: (data) => void written.push(String(data)),
        flush: () => {
          flushes += 1;
        },
      },
    });
    await transport.send({ id: 1, method: "a" });
    await transport.send({ id: 2, method: "b" });
    expect([written.length, flushes]).toEqual([2, 2]);
  });
});
