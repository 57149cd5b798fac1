/**
 * What an HTTP request to a WebSocket listener must satisfy before anything else looks at
 * it. A browser page on another site can reach a loopback port; two checks keep it out:
 * a request with an `Origin` must come from the listener's own web client or an origin
 * the operator allowed, and a loopback listener only answers requests addressed to a
 * loopback name (a DNS-rebinding page addresses its own name). The token is checked after.
 */
import { isLoopbackHost, tokenFromSubprotocols } from "@knightcode/app-server-protocol";

/** What a listener accepts. */
export interface RequestPolicy {
  scheme: "ws" | "wss";
  loopback: boolean;
  /** Exact origins (`https://app.example.com`) allowed besides the listener's own. */
  allowOrigins: readonly string[];
}

/** The host part of a `Host` header (`[::1]:80` -> `[::1]`, `a:1` -> `a`). */
function hostName(host: string): string {
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  const colon = host.lastIndexOf(":");
  return colon < 0 ? host : host.slice(0, colon);
}

/** Why a request is refused before authentication (403), or undefined when it may go on. */
export function refusal(request: Request, policy: RequestPolicy): string | undefined {
  const host = request.headers.get("host");
  if (policy.loopback && (host === null || !isLoopbackHost(hostName(host)))) return "host";
  const origin = request.headers.get("origin");
  if (origin === null) return undefined;
  if (policy.allowOrigins.includes(origin)) return undefined;
  // the listener's own web client: the page was served from the very host:port it connects to
  const own = `${policy.scheme === "wss" ? "https" : "http"}://${host}`;
  return host !== null && origin.toLowerCase() === own.toLowerCase() ? undefined : "origin";
}

/** The token a request presents: `Authorization: Bearer`, else the browser's subprotocol. */
export function presentedToken(request: Request): string | undefined {
  const authorization = request.headers.get("authorization");
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match?.[1];
  }
  return tokenFromSubprotocols(request.headers.get("sec-websocket-protocol"));
}
