/**
 * The ACP stream over stdin/stdout. Input is the SDK's own newline-delimited JSON reader
 * (line buffer, size cap, parse errors answered). Output is written here: the SDK hands
 * over one message at a time, and going through its byte-stream writer would add an
 * encode step and a second promise chain per message. The first message of a burst is
 * written at once (no added latency); those that follow in the same run of the event
 * loop are joined into one write at its end, as the app server's stdio transport joins
 * its lines. A write waits only when the sink asks for it (`drain`).
 */
import { type AnyMessage, ndJsonStream, type Stream } from "@agentclientprotocol/sdk";

/** The part of a Node writable the stream needs (stdout). */
export interface LineSink {
  write(data: string): boolean;
  once(event: "drain", listener: () => void): unknown;
  end(callback: () => void): unknown;
}

/** A stream of ACP messages over a byte input and a line sink. */
export function acpStdioStream(input: ReadableStream<Uint8Array>, output: LineSink): Stream {
  // the SDK's reader; its writer is never used
  const { readable } = ndJsonStream(new WritableStream<Uint8Array>(), input);
  let pending = "";
  let burst = false;
  let blocked: Promise<void> | undefined;
  const put = (data: string) => {
    if (output.write(data)) return;
    blocked = new Promise<void>((resolve) =>
      output.once("drain", () => {
        blocked = undefined;
        resolve();
      }),
    );
  };
  const endBurst = () => {
    burst = false;
    if (pending === "") return;
    const data = pending;
    pending = "";
    put(data);
  };
  const writable = new WritableStream<AnyMessage>({
    write: (message) => {
      const line = `${JSON.stringify(message)}\n`;
      if (burst) {
        pending += line;
      } else {
        burst = true;
        put(line);
        setImmediate(endBurst);
      }
      return blocked;
    },
    close: () => {
      endBurst();
      return new Promise<void>((resolve) => output.end(() => resolve()));
    },
  });
  return { readable, writable };
}
