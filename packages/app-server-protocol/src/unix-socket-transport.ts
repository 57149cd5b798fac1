/**
 * The client side of a `unix://PATH` listener: JSON lines over the socket, the same
 * framing as stdio. Node and Bun only (it imports `node:net`), so it is its own entry
 * point, `@knightcode/app-server-protocol/unix`, which browsers never load.
 */
import { createConnection } from "node:net";
import { StreamTransport } from "./stream-transport.ts";

/** Connects to the socket at `path`; rejects when nothing listens there. */
export async function connectUnixSocket(path: string): Promise<StreamTransport> {
  const socket = createConnection(path);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("error", (error) => reject(new Error(`cannot connect to unix://${path}: ${error.message}`)));
  });
  return new StreamTransport({
    readable: socket as AsyncIterable<Uint8Array>,
    writable: {
      write: (data) => socket.write(data),
      end: () => socket.end(),
    },
  });
}
