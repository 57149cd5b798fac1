/** Small pieces both loopback model servers (the mock and the replay server) answer with. */

/** A 200 streaming response framed as server-sent events. */
export function sseResponse(body: ReadableStream<Uint8Array>): Response {
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** `close()` for a server: stops it once, dropping open streams; later calls do nothing. */
export function closeOnce(server: {
  stop(closeActiveConnections?: boolean): Promise<void>;
}): () => Promise<void> {
  let closed = false;
  return async () => {
    if (closed) return;
    closed = true;
    await server.stop(true);
  };
}
