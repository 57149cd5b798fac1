/** The fuzz corpus against a real `knightcode app-server` child: it survives, answers every request, and exits cleanly. */
import { expect, test } from "bun:test";
import {
  knightcodeArgv,
  mockModelsJson,
  startMockModelServer,
  streamLines,
  tempAgentDir,
} from "@knightcode/testkit";
import { expectation, fuzzLine, prng } from "../support/fuzz-lines.ts";
import { E2E_TIMEOUT } from "./harness.ts";

test(
  "[stdio] 3,000 random and malformed lines never crash the server and every request is answered",
  async () => {
    await using mock = await startMockModelServer();
    await using agent = await tempAgentDir({ models: mockModelsJson(mock) });
    const child = Bun.spawn(knightcodeArgv(["app-server"]), {
      cwd: agent.cwd,
      env: { ...process.env, ...agent.env },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stderr = new Response(child.stderr).text();
    const rand = prng(2026);
    const expected: (string | number)[] = [];
    let input =
      '{"id":"init","method":"initialize","params":{"clientInfo":{"name":"fuzz"}}}\n{"method":"initialized"}\n';
    for (let n = 0; n < 3000; n++) {
      const line = fuzzLine(rand, n);
      const expect_ = expectation(line, 64 * 1024 * 1024);
      if (expect_.kind === "id") expected.push(expect_.id);
      input += `${line}\n`;
    }
    input += '{"id":"final","method":"server/diagnostics","params":{}}\n';
    child.stdin.write(input);
    child.stdin.flush();
    const answered = new Map<unknown, number>();
    // read to EOF: stdin closes once "final" is answered, and shutdown answers what is still running
    for await (const line of streamLines(child.stdout)) {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (!("result" in message || "error" in message)) continue;
      if ("error" in message) {
        const error = message.error as { code: unknown; message: unknown };
        expect(typeof error.code).toBe("string");
        expect(typeof error.message).toBe("string");
      }
      answered.set(message.id, (answered.get(message.id) ?? 0) + 1);
      if (message.id === "final") child.stdin.end();
    }
    expect(await child.exited).toBe(0);
    const missing = expected.filter((id) => answered.get(id) !== 1);
    expect(missing).toEqual([]);
    expect(await stderr).not.toContain("panic");
  },
  E2E_TIMEOUT,
);
