/**
 * `--listen <url>`: where the server takes its connections. `stdio://` is the process's
 * own stdin/stdout (one connection), `unix://PATH` a socket file (JSON lines, as on
 * stdio, one connection per accepted socket), `ws://IP:PORT` and `wss://IP:PORT` a
 * WebSocket listener (one message per text frame). Parsing is pure; errors are usage
 * errors (exit 2).
 */
import { isLoopbackHost } from "@knightcode/app-server-protocol";

/** A parsed `--listen` value. */
export type ListenAddress =
  | { kind: "stdio" }
  | { kind: "unix"; path: string }
  | { kind: "ws" | "wss"; hostname: string; port: number; loopback: boolean };

/** A `--listen` value that cannot be used, with the reason. */
export class ListenAddressError extends Error {
  override readonly name = "ListenAddressError";
}

/** Parses `stdio://`, `unix://PATH`, `ws://IP:PORT` or `wss://IP:PORT` (port 0: any free port). */
export function parseListenAddress(value: string): ListenAddress {
  if (value === "stdio://" || value === "stdio") return { kind: "stdio" };
  if (value.startsWith("unix://")) {
    const path = value.slice("unix://".length);
    if (path === "")
      throw new ListenAddressError("unix:// needs a socket path, e.g. unix:///run/knightcode.sock");
    return { kind: "unix", path };
  }
  const scheme = /^(wss?):\/\//.exec(value)?.[1] as "ws" | "wss" | undefined;
  if (scheme === undefined) {
    throw new ListenAddressError(
      `--listen takes stdio://, unix://PATH, ws://IP:PORT or wss://IP:PORT, not '${value}'`,
    );
  }
  // checked before URL parsing, which only says "invalid URL" for a port past 65535
  const portText = /:(\d+)\/?$/.exec(value)?.[1];
  if (portText !== undefined && Number(portText) > 65_535) {
    throw new ListenAddressError(`--listen port ${portText} is out of range`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ListenAddressError(`--listen '${value}' is not a valid URL`);
  }
  if (
    (url.pathname !== "/" && url.pathname !== "") ||
    url.search !== "" ||
    url.hash !== "" ||
    url.username !== ""
  ) {
    throw new ListenAddressError(
      `--listen takes ${scheme}://IP:PORT with nothing after the port, not '${value}'`,
    );
  }
  // URL drops a scheme's default port; a listener needs it spelled out
  const explicitPort = /:(\d+)\/?$/.exec(value)?.[1];
  if (explicitPort === undefined)
    throw new ListenAddressError(`--listen '${value}' needs a port (0 picks a free one)`);
  const port = Number(explicitPort);
  if (!Number.isInteger(port) || port > 65_535)
    throw new ListenAddressError(`--listen port ${explicitPort} is out of range`);
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  if (!isIpLiteral(hostname) && hostname !== "localhost") {
    throw new ListenAddressError(`--listen takes an IP address (or localhost), not the name '${hostname}'`);
  }
  return { kind: scheme, hostname, port, loopback: isLoopbackHost(hostname) };
}

function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || (host.includes(":") && /^[0-9a-fA-F:.]+$/.test(host));
}

/** The URL a client attaches to, once the real port is known. */
export function attachUrl(address: { kind: "ws" | "wss"; hostname: string }, port: number): string {
  const host = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname;
  return `${address.kind}://${host}:${port}`;
}
