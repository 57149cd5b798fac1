import { closeOnce, sseResponse } from "./loopback-http.ts";
import { renderAnthropic } from "./render-anthropic.ts";
import { renderChatCompletions } from "./render-chat-completions.ts";
import { renderResponses } from "./render-responses.ts";
import { createRequestLog } from "./request-log.ts";
import type { MockResponder, MockScript, MockWireFormat, RecordedRequest } from "./script.ts";
import { renderVendorError } from "./vendor-errors.ts";

/** A running loopback mock model server. */
export interface MockModelServer extends AsyncDisposable {
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  /** `url + "/v1"`: works as the base URL for every SDK (paths are matched by suffix). */
  readonly baseUrl: string;
  /** Every request received so far, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Queues responders, consumed one per request in order. */
  enqueue(...responders: MockResponder[]): void;
  /** The responder used when the queue is empty (default: none, which answers a 500). */
  setDefault(responder: MockResponder | undefined): void;
  /** Number of queued responders not yet consumed. */
  pending(): number;
  /** Resolves with the request at `index` once it has arrived (default: the next one). */
  waitForRequest(index?: number, timeoutMs?: number): Promise<RecordedRequest>;
  /** Clears the queue, the default and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

/** Which wire format a request path asks for; matched by suffix so `/v1` prefixes are optional. */
export function wireFormatOf(path: string): MockWireFormat | "unknown" {
  if (path.endsWith("/chat/completions")) return "chat-completions";
  if (path.endsWith("/responses")) return "responses";
  if (path.endsWith("/messages")) return "anthropic-messages";
  return "unknown";
}

const RENDERERS: Record<MockWireFormat, (script: MockScript, request: RecordedRequest) => string[]> = {
  "chat-completions": renderChatCompletions,
  responses: renderResponses,
  "anthropic-messages": renderAnthropic,
};

/** Starts the mock on 127.0.0.1 with an ephemeral port. */
export async function startMockModelServer(): Promise<MockModelServer> {
  const queue: MockResponder[] = [];
  let fallback: MockResponder | undefined;
  const log = createRequestLog("mock");
  const { requests } = log;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Stalled streams must stay open as long as a test needs them.
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const format = wireFormatOf(url.pathname);
      const recorded = await log.receive(req, url.pathname, format);

      const responder = queue.shift() ?? fallback;
      if (format === "unknown" || req.method !== "POST") {
        return new Response(JSON.stringify({ error: { message: `mock: no route for ${url.pathname}` } }), {
          status: 404,
          headers: { "content-type": "application/json" },
        });
      }
      if (!responder) {
        const rendered = renderVendorError(
          { kind: "server", message: `testkit mock: no script queued for request ${recorded.index}` },
          format,
        );
        return new Response(rendered.body, { status: rendered.status, headers: rendered.headers });
      }
      const script = typeof responder === "function" ? responder(recorded) : responder;
      if (script.error) {
        const rendered = renderVendorError(script.error, format);
        return new Response(rendered.body, { status: rendered.status, headers: rendered.headers });
      }
      const frames = RENDERERS[format](script, recorded);
      return sseResponse(streamFrames(frames, script, req.signal));
    },
  });

  const url = `http://127.0.0.1:${server.port}`;
  const close = closeOnce(server);

  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    enqueue: (...responders) => {
      queue.push(...responders);
    },
    setDefault: (responder) => {
      fallback = responder;
    },
    pending: () => queue.length,
    waitForRequest: (index = requests.length, timeoutMs = 10_000) => log.waitFor(index, timeoutMs),
    reset: () => {
      queue.length = 0;
      fallback = undefined;
      requests.length = 0;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Streams SSE frames honouring the script's delay, cut and stall settings. A Bun "direct"
 * stream, so frames can be flushed to the socket before the connection is broken.
 */
function streamFrames(frames: string[], script: MockScript, signal: AbortSignal): ReadableStream<Uint8Array> {
  const limit = Math.min(
    frames.length,
    script.cutAfterEvents ?? Number.POSITIVE_INFINITY,
    script.stallAfterEvents ?? Number.POSITIVE_INFINITY,
  );
  const delayMs = script.delayMs ?? 0;
  return new ReadableStream({
    type: "direct",
    async pull(controller) {
      if (script.pauseAfterEvents !== undefined) {
        controller.write(frames.slice(0, script.pauseAfterEvents).join(""));
        await controller.flush();
        await script.resumeWhen;
        if (!signal.aborted) {
          controller.write(frames.slice(script.pauseAfterEvents).join(""));
          await controller.flush();
        }
        controller.close();
        return;
      }
      if (delayMs <= 0) {
        // One write for the whole reply keeps large benchmark streams cheap.
        controller.write(frames.slice(0, limit).join(""));
        await controller.flush();
      } else {
        for (let i = 0; i < limit && !signal.aborted; i++) {
          if (i > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
          controller.write(frames[i]!);
          await controller.flush();
        }
      }
      if (script.cutAfterEvents !== undefined && script.cutAfterEvents < frames.length) {
        // Let the event loop hand the flushed frames to the socket (or wait until the test
        // has seen them), then reset the connection mid-body by throwing from the direct stream.
        await (script.cutWhen ?? new Promise((resolve) => setImmediate(resolve)));
        throw new Error("testkit mock: stream cut on purpose (cutAfterEvents)");
      }
      if (script.stallAfterEvents !== undefined && script.stallAfterEvents < frames.length) {
        // Held open until the client disconnects, which is what abort tests exercise.
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener("abort", () => resolve(), { once: true });
        });
      }
      controller.close();
    },
  }) as ReadableStream<Uint8Array>;
}
