/**
 * How a client presents its token to a WebSocket listener. Programs send
 * `Authorization: Bearer <token>`; a browser cannot set headers on a WebSocket, so it
 * offers the token as a subprotocol next to the real one, and the server answers with
 * the real one only. Both sides build and read the list here, so they cannot drift.
 * The token never goes into a URL: servers and proxies log those.
 */

/** The protocol's own subprotocol; the only one a server ever answers with. */
export const KNIGHTCODE_SUBPROTOCOL = "knightcode.v1";

/** The prefix of the subprotocol that carries a browser's token. */
export const BEARER_SUBPROTOCOL_PREFIX = "knightcode.bearer.";

/** Base64url without padding: the alphabet a subprotocol name may hold. */
function base64url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(value: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(value)) return undefined;
  try {
    const binary = atob(value.replaceAll("-", "+").replaceAll("_", "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The subprotocols a browser offers: `knightcode.v1` and its token as `knightcode.bearer.<base64url>`. */
export function bearerSubprotocols(token: string): string[] {
  return [KNIGHTCODE_SUBPROTOCOL, `${BEARER_SUBPROTOCOL_PREFIX}${base64url(token)}`];
}

/** The token in a `Sec-WebSocket-Protocol` header value, if one is offered (server side). */
export function tokenFromSubprotocols(header: string | null | undefined): string | undefined {
  if (header === null || header === undefined) return undefined;
  for (const part of header.split(",")) {
    const name = part.trim();
    if (name.startsWith(BEARER_SUBPROTOCOL_PREFIX)) {
      return fromBase64url(name.slice(BEARER_SUBPROTOCOL_PREFIX.length));
    }
  }
  return undefined;
}

/** Whether a `Sec-WebSocket-Protocol` header value offers `knightcode.v1`. */
export function offersKnightcodeSubprotocol(header: string | null | undefined): boolean {
  return (header ?? "").split(",").some((part) => part.trim() === KNIGHTCODE_SUBPROTOCOL);
}

/** True for `localhost`, 127.0.0.0/8 and `::1` (brackets allowed): names that never leave the machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  if (lower === "localhost" || lower === "::1" || lower === "0:0:0:0:0:0:0:1") return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(lower);
  return v4?.slice(1).every((octet) => Number(octet) <= 255) === true;
}
