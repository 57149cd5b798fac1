/**
 * Real git repositories for the worktree end-to-end tests: a project folder made a
 * repository with one commit, an optional bare `origin`, and synchronous git for the
 * checks (the tests compare what the server did with what git itself says).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AppServerClient, TurnCompletedNotification } from "@knightcode/app-server-protocol";
import { gitSync, type MockResponder, type MockScript, textReply, toolCallReply } from "@knightcode/testkit";
import { nextNotification } from "./harness.ts";

export { gitSync };

/** Writes files (path relative to `dir` -> content), making folders. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** Makes `dir` a repository on branch main with `files` committed, its identity set. */
export function initRepo(
  dir: string,
  files: Record<string, string> = { "shared.txt": "one\ntwo\nthree\n" },
): void {
  gitSync(dir, "init", "-q", "-b", "main");
  gitSync(dir, "config", "user.name", "Test");
  gitSync(dir, "config", "user.email", "test@example.com");
  writeFiles(dir, files);
  gitSync(dir, "add", "-A");
  gitSync(dir, "commit", "-q", "-m", "initial");
}

/** Commits everything in `dir`. */
export function commitAll(dir: string, message: string): string {
  gitSync(dir, "add", "-A");
  gitSync(dir, "commit", "-q", "-m", message);
  return gitSync(dir, "rev-parse", "HEAD").trim();
}

/** A bare repository at `bare`, added as `origin` of `dir` with main pushed. */
export function addOrigin(dir: string, bare: string): void {
  gitSync(dirname(bare), "init", "-q", "--bare", bare);
  gitSync(dir, "remote", "add", "origin", bare);
  gitSync(dir, "push", "-q", "origin", "main");
}

/**
 * Responds to every request of the thread whose prompt names `marker`: first a `write`
 * of `path` with `content`, then (once the tool result is in the request) a text reply.
 */
export function writeThenDone(
  marker: string,
  path: string,
  content: string,
  /** The text reply waits for this (say, a diff of the write), so it arrives during the turn. */
  holdReply?: Promise<void>,
): MockResponder {
  return (request) => {
    const body = request.rawBody;
    if (!body.includes(marker)) throw new Error(`request for another thread: ${body.slice(0, 200)}`);
    if (!body.includes('"role":"tool"'))
      return toolCallReply({ name: "write", arguments: { path, content } });
    const reply = textReply(`${marker} done`);
    return holdReply ? { ...reply, pauseAfterEvents: 0, resumeWhen: holdReply } : reply;
  };
}

/** One responder for several threads: the marker found in the request picks its write. */
export function writeByMarker(
  writes: Record<string, [path: string, content: string, holdReply?: Promise<void>]>,
): MockResponder {
  return (request) => {
    for (const [marker, [path, content, hold]] of Object.entries(writes)) {
      if (request.rawBody.includes(marker))
        return (writeThenDone(marker, path, content, hold) as (r: typeof request) => MockScript)(request);
    }
    throw new Error("a request of no known thread");
  };
}

/** The `turn/diff/updated` diffs of one thread as they arrive. */
export interface DiffWatch {
  readonly diffs: string[];
  /** How many arrived before the thread's `turn/completed`. */
  readonly duringTurn: number;
  /** Settles when the first diff arrives. */
  readonly first: Promise<void>;
  /** Settles once a diff equal to `expected()` has arrived (the turn's last may follow `turn/completed`). */
  arrives(expected: () => string, timeoutMs?: number): Promise<void>;
  stop(): void;
}

export function watchDiffs(client: AppServerClient, threadId: string): DiffWatch {
  const diffs: string[] = [];
  let completed = false;
  let duringTurn = 0;
  const first = Promise.withResolvers<void>();
  const listeners = new Set<() => void>();
  const off = client.onNotification("*", (method, params) => {
    const p = params as { threadId?: string; diff?: string };
    if (p.threadId !== threadId) return;
    if (method === "turn/completed") completed = true;
    if (method !== "turn/diff/updated") return;
    diffs.push(p.diff!);
    if (!completed) duringTurn++;
    first.resolve();
    for (const listener of [...listeners]) listener();
  });
  return {
    diffs,
    get duringTurn() {
      return duringTurn;
    },
    first: first.promise,
    arrives(expected, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!diffs.includes(expected())) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no turn/diff/updated equal to the expected diff; got ${JSON.stringify(diffs)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    stop: off,
  };
}

/** Runs one turn (watching its diffs) and resolves with its completion. */
export async function turnWithDiffs(
  client: AppServerClient,
  threadId: string,
  text: string,
  watch: DiffWatch = watchDiffs(client, threadId),
): Promise<{ completed: TurnCompletedNotification; watch: DiffWatch }> {
  const completed = nextNotification<TurnCompletedNotification>(
    client,
    "turn/completed",
    (p) => p.threadId === threadId,
  );
  await client.request("turn/start", { threadId, text });
  return { completed: await completed, watch };
}
