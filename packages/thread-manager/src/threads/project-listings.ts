/**
 * `command/list` and `mcpServer/list` for a loaded thread (its extensions' commands and
 * MCP prompts, its running servers), an unloaded one (its project's), or a directory.
 */
import type {
  CommandListParams,
  CommandListResult,
  McpServerListParams,
  McpServerListResult,
} from "@knightcode/app-server-protocol";
import { configuredMcpServers } from "@knightcode/config";
import type { McpHub } from "@knightcode/mcp/mcp-hub";
import { serverStatus, threadServerSpecs } from "@knightcode/mcp/thread-servers";
import { listCommands, projectCommandSources, runtimeCommandSources } from "../commands/commands.ts";
import { type LoaderContext, readProjectSettings, requireDirectory } from "./thread-loader.ts";
import type { ThreadReads } from "./thread-reads.ts";
import type { ThreadRegistry } from "./thread-registry.ts";

/** What the listings read from the manager. */
export interface ListingsHost {
  ctx: LoaderContext;
  registry: ThreadRegistry;
  reads: ThreadReads;
  mcpHub: McpHub;
}

/** `command/list`. */
export async function commandList(host: ListingsHost, params: CommandListParams): Promise<CommandListResult> {
  const { ctx } = host;
  if ("threadId" in params) {
    const runtime = host.registry.threads.get(params.threadId);
    if (runtime) {
      return {
        commands: await listCommands(
          runtimeCommandSources(ctx.agentDir, runtime),
          runtime.extensions.commands,
          (await runtime.mcp?.servers.promptCommands()) ?? [],
        ),
      };
    }
    const { session } = await host.reads.sourceSession(params.threadId);
    return { commands: await listCommands(await projectCommandSources(ctx, session.header.cwd), []) };
  }
  await requireDirectory(params.cwd);
  return { commands: await listCommands(await projectCommandSources(ctx, params.cwd), []) };
}

/** `mcpServer/list`. */
export async function mcpServerList(
  host: ListingsHost,
  params: McpServerListParams,
): Promise<McpServerListResult> {
  if ("threadId" in params) {
    const runtime = host.registry.threads.get(params.threadId);
    if (runtime?.mcp) {
      await runtime.mcp.servers.refreshResources();
      return { servers: runtime.mcp.servers.status() };
    }
    const { session } = await host.reads.sourceSession(params.threadId);
    return { servers: await configuredServerStatus(host, session.header.cwd) };
  }
  await requireDirectory(params.cwd);
  return { servers: await configuredServerStatus(host, params.cwd) };
}

/** What a new thread in `cwd` would run, with the state of any server a loaded thread shares. */
async function configuredServerStatus(
  host: ListingsHost,
  cwd: string,
): Promise<McpServerListResult["servers"]> {
  const project = await readProjectSettings(host.ctx, cwd);
  const specs = threadServerSpecs(
    configuredMcpServers(project.globalSettings, project.projectSettings),
    {},
    [],
  );
  return specs.map((spec) => serverStatus(spec, host.mcpHub.find(spec.name, spec.config, cwd)));
}
