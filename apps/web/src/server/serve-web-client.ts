/**
 * Answers the web client's own requests (`GET /` and its hashed files); anything else is
 * left to the listener. Every answer carries a strict Content-Security-Policy (script,
 * style and connections from this origin only, nothing framed), and the page itself is
 * never cached, so a new server's client is what a reload gets.
 */
import type { WebAssets } from "./web-assets-types.ts";

/** The policy the page runs under; the page repeats it in a meta tag for file:// copies. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The response for `request`, or undefined when it is not one of the client's files. */
export function webClientResponse(assets: WebAssets, request: Request): Response | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  const path = new URL(request.url).pathname;
  const file = assets.files[path === "/index.html" ? "/" : path];
  if (file === undefined) return undefined;
  const headers = {
    "content-type": file.type,
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cache-control":
      path === "/" || path === "/index.html" ? "no-store" : "public, max-age=31536000, immutable",
  };
  return new Response(request.method === "HEAD" ? null : file.body, { headers });
}
