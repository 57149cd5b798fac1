/** Shared set-up for the MCP tests: a hub whose log lines the test can read, and tool calls. */
import type { AgentToolResult, AnyAgentTool } from "@knightcode/agent";
import { McpHub, type McpWarning, ThreadMcpServers, type ThreadServerSpec } from "../src/index.ts";

/** A hub that records log lines, and the thread-level helpers over it. */
export function testHub(env: Record<string, string | undefined> = process.env) {
  const logs: string[] = [];
  const hub = new McpHub({ env, log: (line) => logs.push(line) });
  const later: McpWarning[] = [];
  const thread = (cwd: string) =>
    new ThreadMcpServers({ hub, cwd, warn: (w) => later.push(w), log: (line) => logs.push(line) });
  return {
    hub,
    logs,
    /** Warnings sent after load. */
    later,
    thread,
    async [Symbol.asyncDispose]() {
      await hub.closeAll();
    },
  };
}

/** A spec from settings. */
export function spec(name: string, config: ThreadServerSpec["config"]): ThreadServerSpec {
  return { name, origin: "global", config };
}

/** Runs one agent tool with a fresh signal. */
export function run(
  tools: readonly AnyAgentTool[],
  name: string,
  args: Record<string, unknown>,
  signal = new AbortController().signal,
): Promise<AgentToolResult> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} among ${tools.map((t) => t.name).join(", ")}`);
  return tool.execute(args, { toolCallId: "call_1", signal, onUpdate: () => {} });
}

/** Resolves when `check` holds, polling the event loop; rejects after `timeoutMs`. */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setImmediate(resolve));
  }
}
