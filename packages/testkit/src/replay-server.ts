/**
 * A loopback server that answers model requests with recorded byte streams: the shapes real
 * servers (Ollama, vLLM, llama.cpp, Gemini, DeepSeek, gateways…) send, written from their
 * docs and bug reports. Where the mock model server renders a vendor-neutral script, this one
 * sends the recording as it is, cut into many small writes whose boundaries fall inside lines
 * and inside multi-byte UTF-8 characters, so the client's framing is exercised too.
 *
 * Each queued exchange may check the request it answers (e.g. that the reasoning a DeepSeek
 * reply carried came back); a failed check is answered with a 400 carrying the server's own
 * error text, as the real server would, and is recorded in `rejections`.
 */

import { closeOnce, sseResponse } from "./loopback-http.ts";
import { wireFormatOf } from "./mock-model-server.ts";
import { createRequestLog } from "./request-log.ts";
import type { MockWireFormat, RecordedRequest } from "./script.ts";

/** A recorded response body and where its shape comes from. */
export interface RecordedStream {
  /** The server that sends this shape, e.g. "Ollama 0.12 (OpenAI-compatible /v1)". */
  server: string;
  /** The public doc page or bug report the recording is written from. */
  source: string;
  /** The endpoint family it answers. */
  format: MockWireFormat;
  /** The body, byte for byte (line endings included). */
  body: string;
}

/** One queued answer: the stream, and optionally a check of the request it answers. */
export interface ReplayExchange {
  stream: RecordedStream;
  /** Returns the server's rejection text when the request is not acceptable, else undefined. */
  accept?: (request: RecordedRequest) => string | undefined;
}

/** A request the server refused, and why. */
export interface ReplayRejection {
  index: number;
  message: string;
}

export interface ReplayServer extends AsyncDisposable {
  readonly url: string;
  /** `url + "/v1"`, a base URL for every SDK (paths are matched by suffix). */
  readonly baseUrl: string;
  readonly requests: readonly RecordedRequest[];
  readonly rejections: readonly ReplayRejection[];
  /** Byte chunks each answered request was sent in, by request index. */
  readonly chunkCounts: ReadonlyMap<number, number>;
  enqueue(...exchanges: ReplayExchange[]): void;
  /** Queued exchanges not yet used. */
  pending(): number;
  /** Resolves with the request at `index` once it has arrived. */
  waitForRequest(index: number, timeoutMs?: number): Promise<RecordedRequest>;
  /** Clears the queue, the recorded requests and rejections. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Where a recording is cut into writes: in the middle of every line, and after the first byte
 * of every multi-byte UTF-8 character. Exported so tests can check the cuts themselves.
 */
export function replayChunks(body: string): Uint8Array[] {
  const bytes = new TextEncoder().encode(body);
  const cuts = new Set<number>();
  let lineStart = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === 0x0a || byte === 0x0d) {
      if (i - lineStart > 1) cuts.add(lineStart + ((i - lineStart) >> 1));
      lineStart = i + 1;
    } else if (byte >= 0xc0) {
      // A lead byte: cut between it and its continuation bytes.
      cuts.add(i + 1);
    }
  }
  if (bytes.length - lineStart > 1) cuts.add(lineStart + ((bytes.length - lineStart) >> 1));
  const points = [...cuts].filter((p) => p > 0 && p < bytes.length).sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/** Starts the replay server on 127.0.0.1 with an ephemeral port. */
export async function startReplayServer(): Promise<ReplayServer> {
  const queue: ReplayExchange[] = [];
  const log = createRequestLog("replay");
  const { requests } = log;
  const rejections: ReplayRejection[] = [];
  const chunkCounts = new Map<number, number>();

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const recorded = await log.receive(req, url.pathname, wireFormatOf(url.pathname));
      const exchange = queue.shift();
      if (!exchange) {
        return jsonResponse(500, {
          error: {
            message: `replay: no recording queued for request ${recorded.index}`,
            type: "server_error",
          },
        });
      }
      if (recorded.format !== exchange.stream.format) {
        return jsonResponse(404, {
          error: { message: `replay: ${url.pathname} is not a ${exchange.stream.format} endpoint` },
        });
      }
      const rejection = exchange.accept?.(recorded);
      if (rejection !== undefined) {
        rejections.push({ index: recorded.index, message: rejection });
        return jsonResponse(400, { error: { message: rejection, type: "invalid_request_error", code: 400 } });
      }
      const chunks = replayChunks(exchange.stream.body);
      chunkCounts.set(recorded.index, chunks.length);
      return sseResponse(sendChunks(chunks, req.signal));
    },
  });

  const url = `http://127.0.0.1:${server.port}`;
  const close = closeOnce(server);
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    rejections,
    chunkCounts,
    enqueue: (...exchanges) => {
      queue.push(...exchanges);
    },
    pending: () => queue.length,
    waitForRequest: (index, timeoutMs = 10_000) => log.waitFor(index, timeoutMs),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      rejections.length = 0;
      chunkCounts.clear();
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Writes each chunk and flushes it, handing control back to the event loop between writes so
 * each leaves as its own piece instead of being coalesced into one write.
 */
function sendChunks(chunks: Uint8Array[], signal: AbortSignal): ReadableStream<Uint8Array> {
  return new ReadableStream({
    type: "direct",
    async pull(controller) {
      for (const chunk of chunks) {
        if (signal.aborted) break;
        controller.write(chunk);
        await controller.flush();
        await new Promise((resolve) => setImmediate(resolve));
      }
      controller.close();
    },
  }) as ReadableStream<Uint8Array>;
}
