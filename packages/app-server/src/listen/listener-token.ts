/**
 * The capability token of a WebSocket listener: read from `--token-file`, or made per
 * start and written to a file only its owner can read. Comparison hashes both sides first
 * so that it takes the same time whatever the presented token's length or content.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A token file that cannot be used, with the reason (a usage error, exit 2). */
export class TokenFileError extends Error {
  override readonly name = "TokenFileError";
}

/** The token and where it lives; `generated` tokens are removed at shutdown. */
export interface ListenerToken {
  readonly digest: Buffer;
  readonly file: string;
  readonly generated: boolean;
  /** The token itself, for the process that made it (never logged). */
  readonly value: string;
}

function digestOf(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/** Reads a token file: its first line, whitespace trimmed; empty or unreadable files are refused. */
export function readTokenFile(path: string): ListenerToken {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new TokenFileError(
      `cannot read --token-file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  const token = (text.split("\n")[0] ?? "").trim();
  if (token.length < 16)
    throw new TokenFileError(`--token-file ${path} holds no token of at least 16 characters`);
  return { digest: digestOf(token), file: path, generated: false, value: token };
}

/** Makes a fresh token and writes it to `<agentDir>/remote/<name>.token` (directory 0700, file 0600). */
export function generateToken(agentDir: string, name: string): ListenerToken {
  const token = randomBytes(32).toString("base64url");
  const dir = join(agentDir, "remote");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = join(dir, `${name}.token`);
  rmSync(file, { force: true });
  // `wx`: never write through a file (or link) someone put there between the two calls
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: "wx" });
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  return { digest: digestOf(token), file, generated: true, value: token };
}

/** Whether a presented token is the listener's, in constant time. */
export function tokenMatches(presented: string | undefined, token: ListenerToken): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digestOf(presented), token.digest);
}

/** Removes a generated token's file (at shutdown); a given `--token-file` is left alone. */
export function discardToken(token: ListenerToken): void {
  if (token.generated) rmSync(token.file, { force: true });
}
