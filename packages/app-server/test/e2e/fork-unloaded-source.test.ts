/**
 * `thread/fork` of a thread that is not loaded asks the source's extensions
 * (`session_before_fork`) exactly as for a loaded one, so a guard such as pi's
 * `dirty-repo-guard.ts` cannot be bypassed by forking a thread nobody has open. A source
 * with no extension to discover is only read (it stays `notLoaded`, takes no lock); one
 * another process owns is still copied read-only. The sources are transcripts written by
 * the session store in this process and closed again, so the server has never loaded them.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppServerClient } from "@knightcode/app-server-protocol";
import { lockPathFor, projectDirName, SessionFile, sessionsRoot } from "@knightcode/session-store";
import { E2E_TIMEOUT, type E2EServer, PI_EXAMPLES, recordNotifications, TARGETS } from "./harness.ts";

const DIRTY_REPO_GUARD = join(PI_EXAMPLES, "dirty-repo-guard.ts");
const FORK_WITNESS = join(import.meta.dir, "fixtures", "extensions", "fork-witness.ts");

/** Writes a closed (unowned) transcript of one named thread in the server's session dir. */
async function unloadedThread(
  server: E2EServer,
  name: string,
): Promise<{ id: string; path: string; leaf: string }> {
  const dir = join(sessionsRoot(server.agent.agentDir), projectDirName(server.agent.cwd));
  mkdirSync(dir, { recursive: true });
  const session = await SessionFile.create({
    dir,
    cwd: server.agent.cwd,
    initialEntries: [{ type: "session_info", name }],
  });
  const out = { id: session.id, path: session.path, leaf: session.leafId! };
  session.close();
  return out;
}

/** Runs git in `cwd` (identity given inline: the test machine may have none). */
async function git(cwd: string, ...args: string[]): Promise<void> {
  const run = Bun.spawn(["git", "-c", "user.name=test", "-c", "user.email=test@example.com", ...args], {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([run.exited, new Response(run.stderr).text()]);
  if (code !== 0) throw new Error(`git ${args.join(" ")} failed: ${stderr}`);
}

/** The error a refused request answers with. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string; data: unknown }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: string; message: string; data: unknown };
    return { code: e.code, message: e.message, data: e.data };
  }
  throw new Error("expected the request to be refused");
}

async function threadIds(client: AppServerClient): Promise<string[]> {
  const { threads } = await client.request("thread/list", {});
  return threads.map((t) => t.id).sort();
}

async function statusOf(client: AppServerClient, threadId: string): Promise<string> {
  return (await client.request("thread/read", { threadId })).thread.status.type;
}

for (const target of TARGETS) {
  describe(`[${target.name}] thread/fork of a thread that is not loaded`, () => {
    test(
      "dirty-repo-guard.ts refuses it with uncommitted changes (invalidParams, extensionCancelled; nothing written); once committed the fork goes through",
      async () => {
        await using server = await target.start({ extensions: [DIRTY_REPO_GUARD] });
        const { client } = server;
        const cwd = server.agent.cwd;
        await git(cwd, "init", "-q");
        writeFileSync(join(cwd, "work.txt"), "uncommitted\n");
        const source = await unloadedThread(server, "guarded");
        const transcript = readFileSync(source.path, "utf8");
        expect(await statusOf(client, source.id)).toBe("notLoaded");
        const before = await threadIds(client);
        const seen = recordNotifications(client);

        const refused = await refusal(client.request("thread/fork", { threadId: source.id }));
        expect(refused.code).toBe("invalidParams");
        expect(refused.data).toEqual({ reason: "extensionCancelled" });
        expect(refused.message).toContain(DIRTY_REPO_GUARD);
        expect(await threadIds(client)).toEqual(before);
        expect(readFileSync(source.path, "utf8")).toBe(transcript);
        expect(seen.filter((n) => n.method === "thread/started")).toEqual([]);
        // the source was loaded to ask its extensions (subscribing nobody); it idles out later
        expect(await statusOf(client, source.id)).toBe("idle");

        await git(cwd, "add", "-A");
        await git(cwd, "commit", "-q", "-m", "work");
        const clean = await unloadedThread(server, "clean");
        const { thread: fork } = await client.request("thread/fork", { threadId: clean.id });
        expect(fork.forkedFromId).toBe(clean.id);
        expect(fork.name).toBe("clean (fork)");
      },
      E2E_TIMEOUT,
    );

    test(
      "an allowing extension is asked with the source's leaf and the fork goes through",
      async () => {
        await using server = await target.start({ extensions: [FORK_WITNESS] });
        const source = await unloadedThread(server, "witnessed");
        const { thread: fork } = await server.client.request("thread/fork", { threadId: source.id });
        expect(fork.forkedFromId).toBe(source.id);
        const asked = readFileSync(join(server.agent.cwd, "forks-asked.jsonl"), "utf8").trim().split("\n");
        expect(asked.map((line) => JSON.parse(line))).toEqual([{ entryId: source.leaf }]);
      },
      E2E_TIMEOUT,
    );

    test(
      "with no extension to discover the source is only read: it stays notLoaded, takes no lock, announces nothing",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const source = await unloadedThread(server, "plain");
        const seen = recordNotifications(client);
        const { thread: fork } = await client.request("thread/fork", { threadId: source.id });
        expect(fork.forkedFromId).toBe(source.id);
        expect(await statusOf(client, source.id)).toBe("notLoaded");
        const listed = (await client.request("thread/list", {})).threads.find((t) => t.id === source.id);
        expect(listed?.status.type).toBe("notLoaded");
        expect(existsSync(lockPathFor(realpathSync(source.path)))).toBe(false);
        const aboutSource = seen.filter((n) => (n.params as { threadId?: string }).threadId === source.id);
        expect(aboutSource).toEqual([]);
      },
      E2E_TIMEOUT,
    );

    test(
      "a source another owner holds is still copied read-only; its extensions are not asked here",
      async () => {
        await using server = await target.start({ extensions: [FORK_WITNESS] });
        const source = await unloadedThread(server, "held");
        // this test process owns the transcript: a separate process on stdio, a second open in-process
        const owner = await SessionFile.openOwned(source.path);
        try {
          const { thread: fork } = await server.client.request("thread/fork", { threadId: source.id });
          expect(fork.forkedFromId).toBe(source.id);
          expect(fork.name).toBe("held (fork)");
          expect(existsSync(join(server.agent.cwd, "forks-asked.jsonl"))).toBe(false);
          expect(await statusOf(server.client, source.id)).toBe("notLoaded");
        } finally {
          owner.close();
        }
      },
      E2E_TIMEOUT,
    );
  });
}
