/**
 * Random hex for temp-file and lock tokens, from the global Web Crypto: `node:crypto`
 * costs a server ~5 ms to load at start, for a few random bytes.
 */
export function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
