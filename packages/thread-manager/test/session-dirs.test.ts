import { describe, expect, spyOn, test } from "bun:test";
import { mkdirSync, realpathSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import * as fsPromises from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { resolveSessionDir, setProjectTrust } from "@knightcode/config";
import { projectDirName } from "@knightcode/session-store";
import { textReply } from "@knightcode/testkit";
import { createThreadManager, staticModelSource } from "../src/index.ts";
import { createHarness } from "./support/harness.ts";

function writeProjectSettings(cwd: string, settings: unknown): void {
  mkdirSync(join(cwd, ".knightcode"), { recursive: true });
  writeFileSync(join(cwd, ".knightcode", "settings.json"), JSON.stringify(settings));
}

describe("session directories", () => {
  test("a desktop thread goes to the global sessionDir, a terminal thread to its project's, and both are found again", async () => {
    await using h = await createHarness();
    const globalDir = join(h.dir.root, "global-sessions");
    await Bun.write(join(h.dir.agentDir, "settings.json"), JSON.stringify({ sessionDir: globalDir }));
    writeProjectSettings(h.dir.cwd, { sessionDir: "../project-sessions" });
    await setProjectTrust(h.dir.agentDir, h.dir.cwd, true);

    const desktop = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.desktop());
    expect(dirname(desktop.thread.path ?? "")).toBe(globalDir);
    const terminal = await h.manager.startThread({ cwd: h.dir.cwd, name: "used" }, h.terminal());
    // A relative project value resolves against `.knightcode/`.
    expect(dirname(terminal.thread.path ?? "")).toBe(join(h.dir.cwd, "project-sessions"));

    // The desktop listing is the global setting's directory only.
    const listed = await h.manager.listThreads({}, h.desktop());
    expect(listed.threads.map((t) => t.id)).toEqual([desktop.thread.id]);
    const terminalListed = await h.manager.listThreads({ cwd: h.dir.cwd }, h.terminal());
    expect(terminalListed.threads.map((t) => t.id)).toEqual([terminal.thread.id]);

    // A fresh manager (a restarted server) finds the thread stored in the global sessionDir.
    await h.manager.closeAll();
    const restarted = createThreadManager({
      agentDir: h.dir.agentDir,
      env: {},
      models: staticModelSource([h.model], { mock: "k" }),
    });
    try {
      const read = await restarted.readThread({ threadId: desktop.thread.id }, h.desktop());
      expect(read.thread.id).toBe(desktop.thread.id);
      const resumed = await restarted.resumeThread({ threadId: desktop.thread.id }, h.desktop());
      expect(resumed.thread.path).toBe(desktop.thread.path);
    } finally {
      await restarted.closeAll();
    }
  });

  test("--session-dir beats KNIGHTCODE_CODING_AGENT_SESSION_DIR, which beats the sessionDir setting", async () => {
    const settings = (root: string) => ({ sessionDir: join(root, "from-setting") });
    await using flagged = await createHarness({
      manager: (dir) => ({
        sessionDir: join(dir.root, "from-flag"),
        env: { KNIGHTCODE_CODING_AGENT_SESSION_DIR: join(dir.root, "from-env") },
      }),
    });
    await Bun.write(join(flagged.dir.agentDir, "settings.json"), JSON.stringify(settings(flagged.dir.root)));
    const a = await flagged.manager.startThread({ cwd: flagged.dir.cwd }, flagged.desktop());
    expect(dirname(a.thread.path ?? "")).toBe(join(flagged.dir.root, "from-flag"));

    await using fromEnv = await createHarness({
      manager: (dir) => ({ env: { KNIGHTCODE_CODING_AGENT_SESSION_DIR: join(dir.root, "from-env") } }),
    });
    await Bun.write(join(fromEnv.dir.agentDir, "settings.json"), JSON.stringify(settings(fromEnv.dir.root)));
    // Even a terminal caller's project setting loses to the environment variable.
    writeProjectSettings(fromEnv.dir.cwd, { sessionDir: "inside" });
    const b = await fromEnv.manager.startThread({ cwd: fromEnv.dir.cwd }, fromEnv.terminal());
    expect(dirname(b.thread.path ?? "")).toBe(join(fromEnv.dir.root, "from-env"));

    await using plain = await createHarness();
    const c = await plain.manager.startThread({ cwd: plain.dir.cwd }, plain.desktop());
    expect(dirname(dirname(c.thread.path ?? ""))).toBe(join(plain.dir.agentDir, "sessions"));
  });

  test("an untrusted project's sessionDir pointing outside it is ignored for a terminal caller, with a trust warning", async () => {
    await using h = await createHarness();
    writeProjectSettings(h.dir.cwd, { sessionDir: join(h.dir.root, "elsewhere") });
    const started = await h.manager.startThread({ cwd: h.dir.cwd }, h.terminal());
    expect(dirname(dirname(started.thread.path ?? ""))).toBe(join(h.dir.agentDir, "sessions"));
    expect(started.warnings.some((w) => w.source === "trust" && w.message.includes("sessionDir"))).toBe(true);
  });
});

describe("a start reads the global settings once", () => {
  test("a desktop thread's directory from the settings already read matches config's resolution", async () => {
    for (const sessionDir of ["relative-sessions", undefined]) {
      await using h = await createHarness();
      const settings = sessionDir === undefined ? {} : { sessionDir };
      await Bun.write(join(h.dir.agentDir, "settings.json"), JSON.stringify(settings));
      const resolved = await resolveSessionDir({ agentDir: h.dir.agentDir, env: {} });
      const started = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
      const expected =
        resolved.source === "default" ? join(resolved.dir, projectDirName(h.dir.cwd)) : resolved.dir;
      expect(dirname(started.thread.path ?? "")).toBe(expected);
      if (sessionDir !== undefined) expect(expected).toBe(join(h.dir.agentDir, sessionDir));
    }
  });

  test("a desktop start opens settings.json and the trust store once each", async () => {
    await using h = await createHarness();
    const globalDir = join(h.dir.root, "global-sessions");
    await Bun.write(join(h.dir.agentDir, "settings.json"), JSON.stringify({ sessionDir: globalDir }));
    const spy = spyOn(fsPromises, "open");
    let opened: string[];
    let started: Awaited<ReturnType<typeof h.manager.startThread>>;
    try {
      started = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
      opened = spy.mock.calls.map((call) => String(call[0]));
    } finally {
      spy.mockRestore();
    }
    expect(dirname(started.thread.path ?? "")).toBe(globalDir);
    expect(opened.filter((path) => path === join(h.dir.agentDir, "settings.json"))).toHaveLength(1);
    expect(opened.filter((path) => basename(path) === "trusted-projects.json")).toHaveLength(1);
  });

  test("malformed global settings: the default directory, and the settings warning once", async () => {
    await using h = await createHarness();
    await Bun.write(join(h.dir.agentDir, "settings.json"), "{ not json");
    const started = await h.manager.startThread({ cwd: h.dir.cwd }, h.desktop());
    expect(dirname(dirname(started.thread.path ?? ""))).toBe(join(h.dir.agentDir, "sessions"));
    const settingsWarnings = started.warnings.filter((w) => w.source === "settings");
    expect(settingsWarnings).toHaveLength(1);
  });
});

describe("project files are read from the project trust was decided for", () => {
  test("APPEND_SYSTEM.md comes from the real path resolved at load, not from a symlink re-pointed since", async () => {
    await using h = await createHarness();
    const trusted = join(h.dir.root, "trusted");
    const other = join(h.dir.root, "other");
    for (const [dir, text] of [
      [trusted, "TRUSTED-APPEND"],
      [other, "OTHER-APPEND"],
    ] as const) {
      mkdirSync(join(dir, ".knightcode"), { recursive: true });
      writeFileSync(join(dir, ".knightcode", "APPEND_SYSTEM.md"), text);
    }
    await setProjectTrust(h.dir.agentDir, trusted, true);
    await setProjectTrust(h.dir.agentDir, other, true);
    const link = join(h.dir.root, "link");
    symlinkSync(trusted, link);
    const { thread } = await h.manager.startThread({ cwd: link }, h.desktop());
    expect(realpathSync(link)).toBe(trusted);
    // The link now names another project; the loaded thread keeps reading the one it trusted.
    unlinkSync(link);
    symlinkSync(other, link);
    h.server.enqueue(textReply("ok"));
    await h.manager.startTurn({ threadId: thread.id, text: "hi" }, h.desktop());
    const request = await h.server.waitForRequest(0);
    expect(request.rawBody.includes("TRUSTED-APPEND")).toBe(true);
    expect(request.rawBody.includes("OTHER-APPEND")).toBe(false);
    await h.waitFor((n) => n.method === "thread/turn/completed");
  });
});
