/**
 * The requests a loopback model server has received, in arrival order, and the tests
 * waiting for one of them. Shared by the mock and the replay server so both wait the
 * same way: by index, with a timeout, never by polling.
 */
import type { RecordedRequest } from "./script.ts";

export interface RequestLog {
  readonly requests: RecordedRequest[];
  /**
   * Reads `req` (the body parsed when it is JSON, header names lower-cased), appends it
   * as the next request and wakes whoever waits for its index.
   */
  receive(req: Request, path: string, format: RecordedRequest["format"]): Promise<RecordedRequest>;
  /** Resolves with request `index` once it has arrived; rejects after `timeoutMs`. */
  waitFor(index: number, timeoutMs: number): Promise<RecordedRequest>;
}

/** `label` names the server in a timeout's message. */
export function createRequestLog(label: string): RequestLog {
  const requests: RecordedRequest[] = [];
  const waiters: { index: number; resolve: (request: RecordedRequest) => void }[] = [];
  return {
    requests,
    async receive(req, path, format) {
      const rawBody = await req.text();
      let body: unknown;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = undefined;
      }
      const headers: Record<string, string> = {};
      req.headers.forEach((value, key) => {
        headers[key.toLowerCase()] = value;
      });
      const request: RecordedRequest = {
        index: requests.length,
        method: req.method,
        path,
        format,
        headers,
        body,
        rawBody,
      };
      requests.push(request);
      for (const waiter of waiters.filter((w) => w.index === request.index)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(request);
      }
      return request;
    },
    waitFor(index, timeoutMs) {
      const existing = requests[index];
      if (existing) return Promise.resolve(existing);
      return new Promise<RecordedRequest>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`${label}: request ${index} did not arrive within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = {
          index,
          resolve: (request: RecordedRequest) => {
            clearTimeout(timer);
            resolve(request);
          },
        };
        waiters.push(waiter);
      });
    },
  };
}
