import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  createBashTool,
  createGrepTool,
  createLocalOperations,
  isCredentialName,
  scrubCredentials,
} from "../../src/index.ts";
import { runTool } from "../helpers/run-tool.ts";
import { tempDir } from "../helpers/temp-dir.ts";

// Values no real environment holds, so finding one in output can only mean a leak.
const SECRETS = {
  ANTHROPIC_API_KEY: "sk-ant-leak-1",
  OPENAI_API_KEY: "sk-openai-leak-2",
  GITHUB_TOKEN: "ghp-leak-3",
  MY_SERVICE_SECRET: "svc-leak-4",
  DB_PASSWORD_FILE: "pw-leak-5",
  GCP_CREDENTIALS: "gcp-leak-6",
  AWS_ACCESS_KEY_ID: "aws-leak-7",
  npm_config__authToken: "npm-leak-8",
};

function leaked(output: string): string[] {
  return Object.values(SECRETS).filter((value) => output.includes(value));
}

describe("credential hygiene", () => {
  test("names matching the credential patterns and the provider variables are credentials", () => {
    for (const name of Object.keys(SECRETS)) expect(isCredentialName(name)).toBe(true);
    for (const name of ["PATH", "HOME", "KEYBOARD", "TOKENIZER_DIR", "LANG", "TERM"])
      expect(isCredentialName(name)).toBe(false);
  });

  test("scrubCredentials keeps ordinary variables and the allowed names", () => {
    expect(
      scrubCredentials({ PATH: "/bin", GITHUB_TOKEN: "x", NPM_TOKEN: "y", UNSET: undefined }, ["NPM_TOKEN"]),
    ).toEqual({
      PATH: "/bin",
      NPM_TOKEN: "y",
    });
  });

  test("env and /proc/self/environ inside a bash call show no credential", async () => {
    await using dir = tempDir();
    const ops = createLocalOperations({ env: { ...process.env, ...SECRETS, KEEP_ME: "visible" } });
    const tool = createBashTool({ cwd: dir.path, ops });
    const result = await runTool(tool, {
      command: "env; echo ---; tr '\\0' '\\n' < /proc/self/environ; echo \"[$ANTHROPIC_API_KEY]\"",
    });
    expect(result.isError).toBe(false);
    expect(leaked(result.text)).toEqual([]);
    expect(result.text).toContain("KEEP_ME=visible");
    expect(result.text).toContain("[]");
  });

  test("variables the request itself adds are scrubbed too", async () => {
    await using dir = tempDir();
    const ops = createLocalOperations({ env: process.env });
    const chunks: string[] = [];
    await ops.spawn({
      file: "/bin/sh",
      args: ["-c", "env"],
      cwd: dir.path,
      env: { OPENAI_API_KEY: SECRETS.OPENAI_API_KEY, EXTRA: "1" },
      onStdout: (c) => chunks.push(new TextDecoder().decode(c)),
    });
    expect(leaked(chunks.join(""))).toEqual([]);
    expect(chunks.join("")).toContain("EXTRA=1");
  });

  test("shellEnvironment.allow lets exactly the listed names through", async () => {
    await using dir = tempDir();
    const ops = createLocalOperations({ env: { ...process.env, ...SECRETS }, allowEnv: ["GITHUB_TOKEN"] });
    const result = await runTool(createBashTool({ cwd: dir.path, ops }), { command: "env" });
    expect(leaked(result.text)).toEqual([SECRETS.GITHUB_TOKEN]);
  });

  test("grep's ripgrep child gets the scrubbed environment", async () => {
    await using dir = tempDir();
    // A stand-in `rg` on PATH that reports its environment as matches.
    const rg = join(dir.path, "rg");
    writeFileSync(rg, "#!/bin/sh\nenv | sed 's/^/x:1:/'\n");
    chmodSync(rg, 0o755);
    const ops = createLocalOperations({ env: { ...SECRETS, PATH: `${dir.path}:/usr/bin:/bin` } });
    const result = await runTool(createGrepTool({ cwd: dir.path, ops }), { pattern: "." });
    expect(result.text).toContain("PATH=");
    expect(leaked(result.text)).toEqual([]);
  });
});
