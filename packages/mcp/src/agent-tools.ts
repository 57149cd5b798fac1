/**
 * MCP tools as agent tools: the name `mcp__<server>__<tool>`, the server's description
 * and its JSON Schema input as the parameters (TypeBox checks JSON Schema as it is), and
 * an `execute` that calls the server and maps the result. A call on a server that is
 * gone fails as a tool error the model reads; it never throws past the tool.
 */
import type { AgentToolResult, AnyAgentTool } from "@knightcode/agent";
// the validator alone (TypeBox's compiler loads on first use), not the agent package
import { compileToolSchema } from "@knightcode/agent/validate-args";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { TSchema } from "typebox";
import { type McpToolDetails, toolResultOf } from "./result-content.ts";
import type { McpSampler } from "./sampling.ts";
import type { McpServerConnection } from "./server-connection.ts";

/** What the model gets when a server's schema cannot be checked: any object, checked by the server. */
const ANY_OBJECT = { type: "object", additionalProperties: true } as unknown as TSchema;

const checkedSchemas = new WeakMap<object, TSchema>();

/** The server's input schema if it compiles, else any object (the server still validates). */
export function inputSchemaOf(tool: Tool, log: (line: string) => void): TSchema {
  const schema = tool.inputSchema as unknown as TSchema;
  const known = checkedSchemas.get(schema);
  if (known) return known;
  let usable: TSchema;
  try {
    // compiled once here and reused when the first call is validated
    compileToolSchema(schema);
    usable = schema;
  } catch (error) {
    log(
      `input schema of MCP tool "${tool.name}" cannot be checked here (${String(error)}); the server checks it`,
    );
    usable = ANY_OBJECT;
  }
  checkedSchemas.set(schema, usable);
  return usable;
}

/** One MCP tool as the agent runs it. */
export function agentToolOf(
  server: string,
  tool: Tool,
  name: string,
  connection: McpServerConnection,
  log: (line: string) => void,
  sample?: McpSampler,
): AnyAgentTool {
  const title = tool.title ?? tool.annotations?.title;
  return {
    name,
    label: `${server}: ${title ?? tool.name}`,
    description: tool.description ?? `The ${tool.name} tool of the ${server} MCP server.`,
    parameters: inputSchemaOf(tool, log),
    origin: { kind: "mcp", server, tool: tool.name },
    async execute(args: Record<string, unknown>, ctx): Promise<AgentToolResult<McpToolDetails>> {
      let result: Awaited<ReturnType<McpServerConnection["callTool"]>>;
      try {
        const sampling = sample !== undefined ? { toolCallId: ctx.toolCallId, sample } : undefined;
        result = await connection.callTool(tool.name, args, ctx.signal, sampling);
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        const detail = error instanceof Error ? error.message : String(error);
        throw new Error(`MCP server "${server}" failed the ${tool.name} call: ${detail}`);
      }
      return toolResultOf(result, server, tool.name);
    },
  };
}
