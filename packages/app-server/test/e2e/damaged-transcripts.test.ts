import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectDirName, sessionsRoot } from "@knightcode/session-store";
import { damagedTranscriptFileName, damagedTranscripts } from "@knightcode/testkit";
import { E2E_TIMEOUT, errorCode, TARGETS } from "./harness.ts";

/** Turn IDs of a page, for comparing with a fixture's expectation. */
const turnIds = (page: { turns: unknown[] }) => page.turns.map((t) => (t as { id: string }).id);

for (const target of TARGETS) {
  describe(`[${target.name}] damaged transcripts`, () => {
    test(
      "thread/read and thread/resume show the valid turns with warnings, keep serving, change no byte and take no lock on read; a fork copies the repaired branch",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const dir = join(sessionsRoot(server.agent.agentDir), projectDirName(server.agent.cwd));
        mkdirSync(dir, { recursive: true });
        const fixtures = damagedTranscripts(server.agent.cwd);
        for (const fixture of fixtures) {
          writeFileSync(join(dir, damagedTranscriptFileName(fixture.threadId)), fixture.bytes);
        }
        const listed = await client.request("thread/list", { cwd: server.agent.cwd, limit: 100 });
        expect(listed.threads.length).toBe(fixtures.filter((f) => !f.notATranscript).length);
        // Files the directory must hold: the transcripts and index, plus a lock per resumed (owned) thread.
        const expectedFiles = readdirSync(dir);

        for (const fixture of fixtures) {
          const path = join(dir, damagedTranscriptFileName(fixture.threadId));
          const params = { threadId: fixture.threadId };
          if (fixture.notATranscript) {
            expect(await errorCode(client.request("thread/read", params))).toBe("threadNotFound");
            expect(await errorCode(client.request("thread/resume", params))).toBe("threadNotFound");
          } else {
            const read = await client.request("thread/read", params);
            expect(turnIds(read)).toEqual(fixture.turnIds);
            expect((read.warnings?.length ?? 0) > 0).toBe(fixture.damaged!);
            for (const warning of read.warnings ?? []) {
              expect(warning.source).toBe("server");
              expect(warning.path).toBe(path);
              expect(warning.line).toBeGreaterThan(1);
            }
            // A read never locks and never writes.
            expect(readdirSync(dir).sort()).toEqual(expectedFiles.sort());
            expect(readFileSync(path).equals(fixture.bytes)).toBe(true);

            const resumed = await client.request("thread/resume", params);
            expectedFiles.push(`${damagedTranscriptFileName(fixture.threadId)}.lock`);
            expect(readdirSync(dir).sort()).toEqual(expectedFiles.sort());
            expect(turnIds(resumed)).toEqual(fixture.turnIds);
            const damageWarnings = resumed.warnings.filter((w) => w.path === path);
            expect(damageWarnings).toEqual(read.warnings ?? []);
            await client.request("thread/unsubscribe", params);

            // a fork copies the repaired branch into a clean transcript
            const forked = await client.request("thread/fork", params);
            const forkRead = await client.request("thread/read", { threadId: forked.thread.id });
            expect(forkRead.turns).toHaveLength(fixture.turnIds.length);
            expect(forkRead.warnings).toBeUndefined();
            await client.request("thread/unsubscribe", { threadId: forked.thread.id });
            expectedFiles.splice(0, expectedFiles.length, ...readdirSync(dir));
          }
          expect(readFileSync(path).equals(fixture.bytes)).toBe(true);
          // The server still answers everything else.
          expect((await client.request("model/list", {})).models.length).toBeGreaterThan(0);
        }
      },
      E2E_TIMEOUT,
    );
  });
}
