/**
 * The MCP servers of one thread: those its settings configure plus those its protocol
 * client passed (an ACP editor's), the client's winning on a name clash. The thread
 * holds a lease on each enabled server, offers their tools (filtered by each server's
 * allow-list, refreshed after `tools/list_changed`) and prompts (as slash commands,
 * refreshed after `prompts/list_changed`) and resources (in its status, read by server
 * name, refreshed after `resources/list_changed`) and reports problems: at load as
 * start/resume warnings, later through `warn` (a subscriber `warning`).
 */
import type { AnyAgentTool } from "@knightcode/agent";
import type { McpServerStatus } from "@knightcode/app-server-protocol";
import { type ConfiguredMcpServer, type McpServerSettings, mcpServerConfigProblem } from "@knightcode/config";
import type { ConnectionLease, McpHub } from "./mcp-hub.ts";
import { type McpPromptCommand, promptCommandsOf } from "./prompt-commands.ts";
import type { McpSampler } from "./sampling.ts";
import type { McpServerConnection } from "./server-connection.ts";
import { uniqueToolNames } from "./tool-names.ts";

/** A warning in the protocol's shape. */
export interface McpWarning {
  source: "mcp";
  message: string;
}

/** A server as the thread knows it, started or not. */
export interface ThreadServerSpec {
  name: string;
  origin: "global" | "project" | "thread";
  config: McpServerSettings;
}

/** The settings servers, then the client's over them by name; invalid client configs become warnings. */
export function threadServerSpecs(
  configured: readonly ConfiguredMcpServer[],
  client: Record<string, unknown> | undefined,
  warnings: { push(warning: McpWarning): unknown },
): ThreadServerSpec[] {
  const byName = new Map<string, ThreadServerSpec>();
  for (const server of configured) byName.set(server.name, server);
  for (const [name, config] of Object.entries(client ?? {})) {
    const problem = mcpServerConfigProblem(config);
    if (problem !== undefined) {
      warnings.push({
        source: "mcp",
        message: `MCP server "${name}" from the client ${problem}; not started`,
      });
      continue;
    }
    byName.set(name, { name, origin: "thread", config: config as McpServerSettings });
  }
  return [...byName.values()];
}

interface HeldServer {
  spec: ThreadServerSpec;
  lease: ConnectionLease;
  stopListening: () => void;
}

/** How a thread's servers are started and where later problems go. */
export interface ThreadServersOptions {
  hub: McpHub;
  cwd: string;
  /** A problem after load: the thread's subscribers get it as a `warning`. */
  warn(warning: McpWarning): void;
  log?: (line: string) => void;
  /** Answers the servers' sampling requests during this thread's tool calls; absent, they are refused. */
  sample?: McpSampler;
}

/** One thread's MCP servers and their tools. */
export class ThreadMcpServers {
  #specs: ThreadServerSpec[] = [];
  #held: HeldServer[] = [];
  #loadWarnings: McpWarning[] | undefined;
  #disposed = false;

  constructor(private readonly options: ThreadServersOptions) {}

  /**
   * Starts (or joins) every enabled server and waits until each is ready or failed,
   * each within its start timeout. Resolves with the problems to report at load.
   */
  async start(specs: ThreadServerSpec[]): Promise<McpWarning[]> {
    const previous = this.#held;
    this.#specs = specs;
    this.#held = [];
    const warnings: McpWarning[] = [];
    this.#loadWarnings = warnings;
    for (const spec of specs) {
      if (spec.config.enabled === false) continue;
      const lease = this.options.hub.acquire(spec.name, spec.config, this.options.cwd);
      const stopListening = lease.connection.on((event) => {
        if (event.type === "toolsChanged") return;
        this.#report({ source: "mcp", message: event.message });
      });
      this.#held.push({ spec, lease, stopListening });
    }
    // Joining before letting the old hold go keeps a server both configs share running.
    await Promise.all(previous.map((held) => this.#drop(held)));
    await Promise.all(this.#held.map((held) => held.lease.connection.start()));
    for (const held of this.#held) {
      const { connection } = held.lease;
      if (connection.state === "failed")
        warnings.push({ source: "mcp", message: `MCP server "${held.spec.name}" ${connection.error}` });
    }
    this.#loadWarnings = undefined;
    return warnings;
  }

  #report(warning: McpWarning): void {
    if (this.#disposed) return;
    if (this.#loadWarnings) this.#loadWarnings.push(warning);
    else this.options.warn(warning);
  }

  /** The agent tools of every ready server, after refetching lists the servers said changed. */
  async tools(): Promise<AnyAgentTool[]> {
    const ready = this.#held.filter((held) => held.lease.connection.state === "ready");
    if (ready.length === 0) return [];
    await Promise.all(ready.map((held) => held.lease.connection.refreshTools()));
    // The adapter (argument validation, result content) loads with the first tools asked for.
    const { agentToolOf } = await import("./agent-tools.ts");
    return ready.flatMap((held) => this.#toolsOf(held.spec, held.lease.connection, agentToolOf));
  }

  /** The prompts of every ready server as commands, after refetching lists the servers said changed. */
  async promptCommands(): Promise<McpPromptCommand[]> {
    const ready = this.#held.filter((held) => held.lease.connection.state === "ready");
    await Promise.all(ready.map((held) => held.lease.connection.refreshPrompts()));
    return ready.flatMap((held) => promptCommandsOf(held.spec.name, held.lease.connection));
  }

  #toolsOf(
    spec: ThreadServerSpec,
    connection: McpServerConnection,
    agentToolOf: typeof import("./agent-tools.ts").agentToolOf,
  ): AnyAgentTool[] {
    const allowed = spec.config.tools;
    const tools = connection.tools.filter((tool) => allowed === undefined || allowed.includes(tool.name));
    const names = uniqueToolNames(
      spec.name,
      tools.map((tool) => tool.name),
    );
    const log = this.options.log ?? ((line: string) => process.stderr.write(`[mcp:${spec.name}] ${line}\n`));
    return tools.map((tool) =>
      agentToolOf(spec.name, tool, names.get(tool.name)!, connection, log, this.options.sample),
    );
  }

  /** The connection of the server of this name the thread holds, ready or not. */
  connectionOf(name: string): McpServerConnection | undefined {
    return this.#held.find((held) => held.spec.name === name)?.lease.connection;
  }

  /** Refetches the resource lists the ready servers said changed, before a status is read. */
  async refreshResources(): Promise<void> {
    const ready = this.#held.filter((held) => held.lease.connection.state === "ready");
    await Promise.all(ready.map((held) => held.lease.connection.refreshResources()));
  }

  /** Every configured server with its state and (allowed) tools, for `mcpServer/list`. */
  status(): McpServerStatus[] {
    return this.#specs.map((spec) => {
      const held = this.#held.find((h) => h.spec === spec);
      return serverStatus(spec, held?.lease.connection);
    });
  }

  async #drop(held: HeldServer): Promise<void> {
    held.stopListening();
    await held.lease.release();
  }

  /** Releases every server; the last holder's release stops it. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const held = this.#held;
    this.#held = [];
    await Promise.all(held.map((h) => this.#drop(h)));
  }
}

/** A server's status line: disabled, not started (no connection), or its connection's state. */
export function serverStatus(
  spec: ThreadServerSpec,
  connection: McpServerConnection | undefined,
): McpServerStatus {
  const transport = "url" in spec.config ? "http" : "stdio";
  const base = { name: spec.name, transport, origin: spec.origin } as const;
  if (spec.config.enabled === false) return { ...base, state: "disabled", tools: [] };
  if (!connection) return { ...base, state: "notStarted", tools: [] };
  const allowed = spec.config.tools;
  const tools = connection.tools.filter((tool) => allowed === undefined || allowed.includes(tool.name));
  const names = uniqueToolNames(
    spec.name,
    tools.map((tool) => tool.name),
  );
  return {
    ...base,
    state: connection.state,
    ...(connection.error !== undefined ? { error: connection.error } : {}),
    tools: tools.map((tool) => ({
      name: names.get(tool.name)!,
      serverToolName: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
    })),
    ...resourcesOf(connection),
  };
}

function resourcesOf(
  connection: McpServerConnection,
): Pick<McpServerStatus, "resources" | "resourceTemplates"> {
  if (connection.resources.length === 0 && connection.resourceTemplates.length === 0) return {};
  const described = (item: { name: string; title?: string; description?: string; mimeType?: string }) => ({
    name: item.name,
    ...(item.title !== undefined ? { title: item.title } : {}),
    ...(item.description !== undefined ? { description: item.description } : {}),
    ...(item.mimeType !== undefined ? { mimeType: item.mimeType } : {}),
  });
  return {
    resources: connection.resources.map((resource) => ({ uri: resource.uri, ...described(resource) })),
    resourceTemplates: connection.resourceTemplates.map((template) => ({
      uriTemplate: template.uriTemplate,
      ...described(template),
    })),
  };
}
