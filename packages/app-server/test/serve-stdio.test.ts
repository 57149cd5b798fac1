import { expect, test } from "bun:test";
import { join } from "node:path";
import { classifyMessage } from "@knightcode/app-server-protocol";
import { collectOutput } from "@knightcode/testkit";

const NOISY = join(import.meta.dir, "support", "noisy-server.ts");

test("stdout carries protocol messages only: console output anywhere in the server goes to stderr", async () => {
  const child = Bun.spawn([process.execPath, NOISY], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  child.stdin.write(
    [
      '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t"}}}',
      '{"method":"initialized","params":{}}',
      '{"id":2,"method":"model/list","params":{}}',
      '{"id":3,"method":"no/such","params":{}}',
      "not json",
      "",
    ].join("\n"),
  );
  child.stdin.end();
  const { stdout, stderr, code } = await collectOutput(child);
  expect(code).toBe(0);
  expect(stdout.endsWith("\n")).toBe(true);
  const lines = stdout.slice(0, -1).split("\n");
  for (const line of lines) expect(classifyMessage(JSON.parse(line))).not.toBeNull();
  const ids = lines.map((l) => String((JSON.parse(l) as { id?: unknown }).id));
  expect(ids.sort()).toEqual(["1", "2", "3", "null"]);
  for (const noise of ["noise: log", "noise: info", "noise: debug", "noise: closing", "noise: count"]) {
    expect(stderr).toContain(noise);
  }
});
