import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  archiveDirOf,
  projectDirName,
  resolveAgentDir,
  resolveSessionDir,
  sessionFileName,
} from "../src/index.ts";

describe("locations", () => {
  test("agent dir comes from KNIGHTCODE_CODING_AGENT_DIR, else ~/.knightcode/agent", () => {
    expect(resolveAgentDir({ KNIGHTCODE_CODING_AGENT_DIR: "/opt/agent" }, "/home/u")).toBe("/opt/agent");
    expect(resolveAgentDir({}, "/home/u")).toBe("/home/u/.knightcode/agent");
    expect(resolveAgentDir({ KNIGHTCODE_CODING_AGENT_DIR: "~/a" }, "/home/u")).toBe("/home/u/a");
  });

  test("per-project directory names replace / \\ and : with - and wrap in --", () => {
    expect(projectDirName("/home/u/work/app")).toBe("--home-u-work-app--");
    expect(projectDirName("C:\\Users\\me\\app")).toBe("--C--Users-me-app--");
  });

  test("file names are the ISO time with : and . replaced, then the id", () => {
    expect(sessionFileName("2026-11-30T00:12:09.123Z", "0193-abc")).toBe(
      "2026-11-30T00-12-09-123Z_0193-abc.jsonl",
    );
  });

  test("override order: --session-dir, then the env variable, then the sessionDir setting, then per project", () => {
    const base = { agentDir: "/agent", cwd: "/work/app", baseDir: "/base", home: "/home/u" };
    const env = { KNIGHTCODE_CODING_AGENT_SESSION_DIR: "/env-dir" };
    expect(resolveSessionDir({ ...base, env, cliSessionDir: "cli", settingsSessionDir: "/s" })).toEqual({
      dir: "/base/cli",
      source: "cli",
    });
    expect(resolveSessionDir({ ...base, env, settingsSessionDir: "/s" })).toEqual({
      dir: "/env-dir",
      source: "env",
    });
    expect(resolveSessionDir({ ...base, env: {}, settingsSessionDir: "~/s" })).toEqual({
      dir: "/home/u/s",
      source: "settings",
    });
    expect(resolveSessionDir({ ...base, env: { KNIGHTCODE_CODING_AGENT_SESSION_DIR: "" } })).toEqual({
      dir: join("/agent", "sessions", "--work-app--"),
      source: "project",
    });
  });

  test("archived transcripts live in archive/ beside the live ones", () => {
    expect(archiveDirOf("/s/--p--")).toBe("/s/--p--/archive");
  });
});
