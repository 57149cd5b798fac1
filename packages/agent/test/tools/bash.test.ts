import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import {
  type AgentToolResult,
  type BashDetails,
  createBashTool,
  createLocalOperations,
} from "../../src/index.ts";
import { isDead, waitUntilDead } from "../helpers/process.ts";
import { runTool } from "../helpers/run-tool.ts";
import { tempDir } from "../helpers/temp-dir.ts";

// A background grandchild that keeps the output pipe open: the call can only finish once
// it is dead, and its pid is the first line of output.
const GRANDCHILD = "sleep 300 & echo $!; wait";

describe("bash tool", () => {
  test("returns combined output and a zero exit code", async () => {
    await using dir = tempDir();
    const tool = createBashTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { command: "echo out; echo err >&2; pwd" });
    expect(result.isError).toBe(false);
    expect(result.text.split("\n").sort()).toEqual(["err", "out", dir.path].sort());
    expect((result.details as BashDetails).exitCode).toBe(0);
  });

  test("a non-zero exit is an error result that keeps the output and the code", async () => {
    await using dir = tempDir();
    const tool = createBashTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { command: "echo failing; exit 3" });
    expect(result.isError).toBe(true);
    expect(result.text).toBe("failing\n\nCommand exited with code 3.");
    expect((result.details as BashDetails).exitCode).toBe(3);
  });

  test("a timeout kills the whole process tree", async () => {
    await using dir = tempDir();
    const tool = createBashTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { command: GRANDCHILD, timeout: 0.3 });
    const pid = Number(result.text.split("\n")[0]);
    expect(pid).toBeGreaterThan(0);
    await waitUntilDead(pid);
    expect(result.isError).toBe(true);
    expect(result.text).toEndWith("Command timed out after 0.3 seconds.");
    expect((result.details as BashDetails).timedOut).toBe(true);
  });

  test("abort kills the whole process tree", async () => {
    await using dir = tempDir();
    const tool = createBashTool({ cwd: dir.path, ops: createLocalOperations() });
    const controller = new AbortController();
    let pid = 0;
    const result = await runTool(
      tool,
      { command: GRANDCHILD },
      {
        signal: controller.signal,
        onUpdate: (partial: AgentToolResult) => {
          const first = partial.content[0];
          if (first?.type === "text" && /^\d+/.test(first.text)) {
            pid = Number.parseInt(first.text, 10);
            controller.abort();
          }
        },
      },
    );
    expect(pid).toBeGreaterThan(0);
    await waitUntilDead(pid);
    expect(result.text).toEndWith("Command aborted.");
    expect((result.details as BashDetails).aborted).toBe(true);
  });

  test("long output keeps its tail, with the full output saved to a temp file", async () => {
    await using dir = tempDir();
    const tool = createBashTool({ cwd: dir.path, ops: createLocalOperations({ tempDir: dir.path }) });
    const result = await runTool(tool, { command: "seq 1 5000" });
    const details = result.details as BashDetails;
    expect(result.text.startsWith("3001\n")).toBe(true);
    expect(
      result.text.includes("\n5000\n\n[Output truncated: showing lines 3001-5000 of 5000 (23.3 KB total)."),
    ).toBe(true);
    expect(details.fullOutputPath).toBeDefined();
    expect(result.text).toContain(`Full output: ${details.fullOutputPath}]`);
    const full = readFileSync(details.fullOutputPath!, "utf8");
    expect(full.split("\n").length).toBe(5001);
    expect(full.startsWith("1\n2\n3\n")).toBe(true);
  });

  test("output over 50 KB is cut by bytes and spooled as it streams", async () => {
    await using dir = tempDir();
    const tool = createBashTool({ cwd: dir.path, ops: createLocalOperations({ tempDir: dir.path }) });
    const result = await runTool(tool, { command: "for i in $(seq 1 300); do printf '%0500d\\n' $i; done" });
    const details = result.details as BashDetails;
    expect(details.truncation?.truncatedBy).toBe("bytes");
    expect(details.truncation?.totalLines).toBe(300);
    expect(readFileSync(details.fullOutputPath!, "utf8").length).toBe(300 * 501);
    expect(result.text.includes(`${"0".repeat(497)}300\n\n[Output truncated: showing lines`)).toBe(true);
  });

  test("a command that leaves a background process holding its output returns once the command exits", async () => {
    await using dir = tempDir();
    const tool = createBashTool({ cwd: dir.path, ops: createLocalOperations() });
    const result = await runTool(tool, { command: "sleep 300 & echo $!" });
    const pid = Number.parseInt(result.text, 10);
    try {
      expect(pid).toBeGreaterThan(0);
      expect(result.isError).toBe(false);
      expect((result.details as BashDetails).exitCode).toBe(0);
      expect((result.details as BashDetails).outputDetached).toBe(true);
      expect(result.text).toContain("A background process still holds the output");
      // The background job was started on purpose; it keeps running.
      expect(isDead(pid)).toBe(false);
    } finally {
      if (pid > 0) process.kill(pid, "SIGKILL");
    }
  });

  test("abort returns even when a process that left the process group still holds the output", async () => {
    await using dir = tempDir();
    const tool = createBashTool({ cwd: dir.path, ops: createLocalOperations() });
    const controller = new AbortController();
    let pid = 0;
    try {
      const result = await runTool(
        tool,
        // setsid puts the job in a session of its own, out of reach of the group kill.
        { command: "setsid sh -c 'echo $$; exec sleep 300' & wait" },
        {
          signal: controller.signal,
          onUpdate: (partial: AgentToolResult) => {
            const first = partial.content[0];
            if (first?.type === "text" && /^\d+\n/.test(first.text)) {
              pid = Number.parseInt(first.text, 10);
              controller.abort();
            }
          },
        },
      );
      expect(pid).toBeGreaterThan(0);
      expect(result.isError).toBe(true);
      expect(result.text).toEndWith("Command aborted.");
      expect((result.details as BashDetails).aborted).toBe(true);
    } finally {
      if (pid > 0) process.kill(pid, "SIGKILL");
    }
  });

  test("no output says so", async () => {
    await using dir = tempDir();
    const tool = createBashTool({ cwd: dir.path, ops: createLocalOperations() });
    expect((await runTool(tool, { command: "true" })).text).toBe("(no output)");
  });
});
