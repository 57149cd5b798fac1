import type { AgentToolResult, AnyAgentTool } from "../../src/index.ts";
import { validateToolArgs } from "../../src/index.ts";

/** Runs a tool the way the loop does (validated args), turning a throw into an error result. */
export async function runTool(
  tool: AnyAgentTool,
  args: Record<string, unknown>,
  options: { signal?: AbortSignal; onUpdate?: (partial: AgentToolResult) => void } = {},
): Promise<AgentToolResult & { text: string }> {
  const validated = validateToolArgs(tool.name, tool.parameters, args);
  if (!validated.ok) throw new Error(validated.message);
  let result: AgentToolResult;
  try {
    result = await tool.execute(validated.args, {
      toolCallId: "test-call",
      signal: options.signal ?? new AbortController().signal,
      onUpdate: options.onUpdate ?? (() => {}),
    });
  } catch (error) {
    result = { content: [{ type: "text", text: (error as Error).message }], isError: true };
  }
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  return { ...result, text };
}
