import { afterEach, describe, expect, test } from "bun:test";
import { AsyncLocalStorage } from "node:async_hooks";
import { PassThrough } from "node:stream";
import { type AppServer, createAppServer } from "../src/server.ts";
import { LineError, OutputOverflowError, StdioServerTransport } from "../src/stdio-transport.ts";
import { FakeThreadManager } from "./support/fake-thread-manager.ts";
import { Changes, withTimeout } from "./support/wait-for.ts";

/**
 * Output sink that records lines and flushes only when told (a client that may stop reading);
 * `changes` is notified on every write and at the end.
 */
class ControlledSink {
  lines: string[] = [];
  private held: (() => void)[] = [];
  ended = false;
  readonly changes = new Changes();
  constructor(public autoFlush = true) {}
  write(chunk: string, callback: () => void): boolean {
    this.lines.push(...chunk.split("\n").filter((l) => l.length > 0));
    if (this.autoFlush) callback();
    else this.held.push(callback);
    this.changes.notify();
    return true;
  }
  flush(): void {
    for (const cb of this.held.splice(0)) cb();
  }
  end(): void {
    this.ended = true;
    this.changes.notify();
  }
  /** Resolves once `check()` holds after some write (or at once); rejects on timeout. */
  until(check: () => boolean, what: string): Promise<void> {
    return this.changes.until(check, what);
  }
  messages(): Record<string, unknown>[] {
    return this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

const servers: AppServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

describe("stdio transport", () => {
  test("a message that cannot be serialized rejects its send; later lines still go out, counted once", async () => {
    const sink = new ControlledSink(false);
    const transport = new StdioServerTransport({ input: new PassThrough(), output: sink });
    await transport.start();
    const bad = transport.send({ method: "x", params: { n: 1n } } as never);
    await expect(bad).rejects.toThrow();
    await transport.send({ method: "ok", params: { text: "héllo" } });
    await transport.send({ method: "ok2" });
    await sink.until(() => sink.lines.length === 2, "the batched lines");
    const expected = Buffer.byteLength('{"method":"ok","params":{"text":"héllo"}}\n{"method":"ok2"}\n');
    expect(transport.unflushedBytes).toBe(expected);
    sink.flush();
    expect(transport.unflushedBytes).toBe(0);
    await transport.close();
  });

  test("a result that cannot be serialized is still answered, as internal; the connection lives on", async () => {
    class BigIntManager extends FakeThreadManager {
      override listModels() {
        return Promise.resolve({ models: [{ size: 1n }] } as never);
      }
    }
    const server = createAppServer({ threads: new BigIntManager(), idleCollect: false });
    servers.push(server);
    const input = new PassThrough();
    const sink = new ControlledSink();
    await server.connect(new StdioServerTransport({ input, output: sink }));
    input.write(
      '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t"}}}\n{"method":"initialized"}\n',
    );
    input.write(
      '{"id":2,"method":"model/list","params":{}}\n{"id":3,"method":"server/diagnostics","params":{}}\n',
    );
    await sink.until(
      () => sink.messages().some((m) => m.id === 2) && sink.messages().some((m) => m.id === 3),
      "the answers to 2 and 3",
    );
    const answer = sink.messages().find((m) => m.id === 2)!;
    expect((answer.error as { code: string }).code).toBe("internal");
    expect("result" in answer).toBe(false);
  });

  test("splits on \\n only: U+2028 and U+2029 inside strings survive", async () => {
    const input = new PassThrough();
    const transport = new StdioServerTransport({ input, output: new ControlledSink() });
    const got: unknown[] = [];
    const received = new Changes();
    transport.onmessage = (m) => {
      got.push(m);
      received.notify();
    };
    await transport.start();
    input.write('{"method":"a","params":{"s":"x\u2028y\u2029z"}}\r\n{"method":"b"}\n');
    await received.until(() => got.length === 2, "two messages");
    expect(got[0]).toEqual({ method: "a", params: { s: "x\u2028y\u2029z" } });
  });

  test("a line over the cap is dropped with lineTooLong and the connection lives on", async () => {
    const input = new PassThrough();
    const output = new ControlledSink();
    const threads = new FakeThreadManager();
    const server = createAppServer({ threads });
    servers.push(server);
    const transport = new StdioServerTransport({ input, output, maxLineBytes: 1024 });
    await server.connect(transport);
    input.write('{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t"}}}\n');
    input.write(`{"id":2,"method":"model/list","params":{"pad":"${"x".repeat(5000)}"}}\n`);
    input.write('{"method":"initialized"}\n{"id":3,"method":"model/list","params":{}}\n');
    await output.until(() => output.messages().some((m) => m.id === 3), "the answer after the long line");
    const messages = output.messages();
    const error = messages.find((m) => m.method === "error")!;
    expect((error.params as { code: string }).code).toBe("lineTooLong");
    expect((error.params as { data: unknown }).data).toEqual({ limitBytes: 1024 });
    expect(messages.some((m) => m.id === 2)).toBe(false);
    expect(messages.find((m) => m.id === 3)!.result).toEqual({ models: [] });
  });

  test("the default line cap is 64 MiB", async () => {
    const input = new PassThrough();
    const transport = new StdioServerTransport({ input, output: new ControlledSink() });
    const errors: Error[] = [];
    const reported = new Changes();
    transport.onerror = (e) => {
      errors.push(e);
      reported.notify();
    };
    await transport.start();
    const chunk = "x".repeat(1024 * 1024);
    for (let i = 0; i < 65; i++) input.write(chunk);
    input.write("\n");
    await reported.until(() => errors.length === 1, "the oversize report");
    expect(errors[0]).toBeInstanceOf(LineError);
    expect((errors[0] as LineError).limitBytes).toBe(64 * 1024 * 1024);
    expect((errors[0] as LineError).bytes).toBe(65 * 1024 * 1024);
  });

  test("an unparseable line is answered with parseError and id null", async () => {
    const input = new PassThrough();
    const output = new ControlledSink();
    const server = createAppServer({ threads: new FakeThreadManager() });
    servers.push(server);
    await server.connect(new StdioServerTransport({ input, output }));
    input.write("{not json\n");
    await output.until(() => output.lines.length === 1, "the parse error");
    expect(output.messages()[0]).toMatchObject({ id: null, error: { code: "parseError" } });
  });

  test("more than the cap of unread output aborts the connection; the server lives on", async () => {
    const threads = new FakeThreadManager();
    const server = createAppServer({ threads });
    servers.push(server);
    const stuckInput = new PassThrough();
    const stuck = new ControlledSink(false);
    const stuckTransport = new StdioServerTransport({
      input: stuckInput,
      output: stuck,
      maxPendingOutputBytes: 64 * 1024,
    });
    const errors: Error[] = [];
    await server.connect(stuckTransport);
    const onerror = stuckTransport.onerror!;
    stuckTransport.onerror = (e) => {
      errors.push(e);
      onerror(e);
    };
    // the server drops the connection from its own close callback; watch that callback
    const stuckClosed = new Changes();
    const onclose = stuckTransport.onclose!;
    stuckTransport.onclose = () => {
      onclose();
      stuckClosed.notify();
    };
    stuckInput.write(
      '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t"}}}\n{"method":"initialized"}\n',
    );
    for (let i = 0; i < 1000; i++)
      stuckInput.write(`{"id":${i + 10},"method":"server/diagnostics","params":{}}\n`);
    await stuckClosed.until(() => server.connections.size === 0, "the abort");
    expect(errors.some((e) => e instanceof OutputOverflowError)).toBe(true);
    expect(stuck.ended).toBe(true);
    expect(threads.closedConnections.length).toBe(1);

    // another connection is unaffected
    const input = new PassThrough();
    const output = new ControlledSink();
    await server.connect(new StdioServerTransport({ input, output }));
    input.write(
      '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t"}}}\n{"method":"initialized"}\n',
    );
    input.write('{"id":2,"method":"model/list","params":{}}\n');
    await output.until(() => output.messages().some((m) => m.id === 2), "the healthy connection's answer");
  });

  test("end of input calls onInputEnded when set, else closes", async () => {
    const input = new PassThrough();
    const transport = new StdioServerTransport({ input, output: new ControlledSink() });
    const ended = Promise.withResolvers<void>();
    transport.onInputEnded = () => ended.resolve();
    await transport.start();
    input.end();
    await withTimeout(ended.promise, "input end");

    const input2 = new PassThrough();
    const t2 = new StdioServerTransport({ input: input2, output: new ControlledSink() });
    const closed = Promise.withResolvers<void>();
    t2.onclose = () => closed.resolve();
    await t2.start();
    input2.end();
    await withTimeout(closed.promise, "close");
  });

  test("drained resolves once the peer has read everything", async () => {
    const sink = new ControlledSink(false);
    const transport = new StdioServerTransport({ input: new PassThrough(), output: sink });
    await transport.send({ method: "x", params: {} });
    expect(transport.unflushedBytes).toBeGreaterThan(0);
    let drained = false;
    const wait = transport.drained().then(() => {
      drained = true;
    });
    expect(drained).toBe(false);
    await sink.until(() => sink.lines.length === 1, "the write");
    sink.flush();
    await wait;
    expect(transport.unflushedBytes).toBe(0);
  });
});

describe("stdio transport backpressure", () => {
  const line = (n: number) => ({ method: "item/agentMessage/delta", params: { delta: "x".repeat(n) } });

  test("outputReady waits past the high-water mark and resumes under the low-water mark", async () => {
    const sink = new ControlledSink(false);
    const transport = new StdioServerTransport({
      input: new PassThrough(),
      output: sink,
      highWaterBytes: 1000,
      lowWaterBytes: 300,
      stallMs: 60_000,
    });
    await transport.send(line(500));
    expect(transport.outputReady()).toBeUndefined();
    await transport.send(line(600));
    const wait = transport.outputReady();
    expect(wait).toBeInstanceOf(Promise);
    // one wait shared by every producer
    expect(transport.outputReady()).toBe(wait!);
    let resumed = false;
    void wait!.then(() => {
      resumed = true;
    });
    await sink.until(() => sink.lines.length === 2, "the batch");
    sink.flush();
    await wait;
    expect(resumed).toBe(true);
    expect(transport.unflushedBytes).toBe(0);
    expect(transport.outputReady()).toBeUndefined();
    await transport.close();
  });

  test("a reader that takes nothing for the stall time lets producers go, so the 64 MiB limit can apply", async () => {
    const sink = new ControlledSink(false);
    const transport = new StdioServerTransport({
      input: new PassThrough(),
      output: sink,
      highWaterBytes: 100,
      lowWaterBytes: 10,
      stallMs: 50,
    });
    await transport.send(line(200));
    const wait = transport.outputReady();
    expect(wait).toBeInstanceOf(Promise);
    await withTimeout(wait!, "the stall release");
    // stalled: producers are not held until a write completes again
    expect(transport.outputReady()).toBeUndefined();
    await sink.until(() => sink.lines.length === 1, "the write");
    sink.flush();
    await transport.send(line(200));
    expect(transport.outputReady()).toBeInstanceOf(Promise);
    await transport.close();
  });

  test("closing releases waiting producers", async () => {
    const sink = new ControlledSink(false);
    const transport = new StdioServerTransport({
      input: new PassThrough(),
      output: sink,
      highWaterBytes: 100,
      stallMs: 60_000,
    });
    await transport.send(line(200));
    const wait = transport.outputReady()!;
    await transport.close();
    await withTimeout(wait, "the release on close");
    expect(transport.outputReady()).toBeUndefined();
  });

  test("past the pending-output limit the transport reports the overflow, closes and ends its output", async () => {
    const sink = new ControlledSink(false);
    const transport = new StdioServerTransport({
      input: new PassThrough(),
      output: sink,
      maxPendingOutputBytes: 1000,
    });
    const overflows: OutputOverflowError[] = [];
    transport.onOverflow = (error) => overflows.push(error);
    await transport.send(line(600));
    await expect(transport.send(line(600))).resolves.toBeUndefined();
    expect(overflows).toHaveLength(1);
    expect(overflows[0]!.pendingBytes).toBeGreaterThan(1000);
    expect(sink.ended).toBe(true);
  });
});

describe("StdioServerTransport async context", () => {
  test("a batch is written in the transport's own async context, not in the sender's", async () => {
    // the extensions' stdout guard tells an extension's writes apart by async context
    const context = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const sink = new ControlledSink();
    const output = {
      write: (chunk: string, callback: () => void) => {
        seen.push(context.getStore());
        return sink.write(chunk, callback);
      },
      end: () => sink.end(),
    };
    const transport = new StdioServerTransport({ input: new PassThrough(), output });
    await transport.start();
    await context.run("extension", () => transport.send({ method: "warning", params: {} } as never));
    await sink.until(() => sink.lines.length === 1, "the line");
    expect(seen).toEqual([undefined]);
  });
});
