/**
 * The `mcpServers` setting: MCP servers keyed by name, from the global settings and,
 * for a trusted project, the project's. A project entry replaces the global entry of
 * the same name whole (a merge could pair one scope's `command` with the other's `url`).
 * A malformed entry is skipped with a `settings` warning naming it; the rest still load.
 */
import { formatDottedKey, isPlainObject } from "./dotted-key.ts";
import type { ConfigWarning } from "./warning.ts";

/** Fields every server config may carry, whatever its transport. */
interface McpServerCommonSettings {
  /** `false` keeps the server configured but never started. */
  enabled?: boolean;
  /** Allow-list of the server's own tool names; absent means every tool. */
  tools?: string[];
  /** Connect-and-initialize timeout in milliseconds. */
  startTimeoutMs?: number;
}

/** A server started as a child process and spoken to over stdio. */
export interface McpStdioServerSettings extends McpServerCommonSettings {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** A server reached over streamable HTTP. */
export interface McpHttpServerSettings extends McpServerCommonSettings {
  url: string;
  headers?: Record<string, string>;
}

/** One server's config, as the `mcpServers` setting and the protocol hold it. */
export type McpServerSettings = McpStdioServerSettings | McpHttpServerSettings;

/** A configured server and the scope it came from. */
export interface ConfiguredMcpServer {
  name: string;
  origin: "global" | "project";
  config: McpServerSettings;
}

/** Longest `startTimeoutMs` accepted (ten minutes), as in the protocol schema. */
export const MAX_MCP_START_TIMEOUT_MS = 600_000;

const COMMON_KEYS = ["enabled", "tools", "startTimeoutMs"];
const STDIO_KEYS = new Set(["command", "args", "env", "cwd", ...COMMON_KEYS]);
const HTTP_KEYS = new Set(["url", "headers", ...COMMON_KEYS]);

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

const isStringMap = (value: unknown): value is Record<string, string> =>
  isPlainObject(value) && Object.values(value).every((item) => typeof item === "string");

/** Why `value` is not a server config, or undefined when it is one. */
export function mcpServerConfigProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return "must be an object";
  const stdio = "command" in value;
  if (stdio === "url" in value) return "needs exactly one of `command` (stdio) or `url` (streamable HTTP)";
  const allowed = stdio ? STDIO_KEYS : HTTP_KEYS;
  const unknown = Object.keys(value).find((key) => !allowed.has(key));
  if (unknown !== undefined) return `has an unknown key \`${unknown}\``;
  if (stdio) {
    if (typeof value.command !== "string" || value.command.length === 0)
      return "`command` must be a non-empty string";
    if (value.args !== undefined && !isStringArray(value.args)) return "`args` must be an array of strings";
    if (value.env !== undefined && !isStringMap(value.env)) return "`env` must map names to strings";
    if (value.cwd !== undefined && (typeof value.cwd !== "string" || value.cwd.length === 0))
      return "`cwd` must be a non-empty string";
  } else {
    if (typeof value.url !== "string" || !URL.canParse(value.url)) return "`url` must be an absolute URL";
    const protocol = new URL(value.url).protocol;
    if (protocol !== "http:" && protocol !== "https:") return "`url` must be http or https";
    if (value.headers !== undefined && !isStringMap(value.headers))
      return "`headers` must map names to strings";
  }
  if (value.enabled !== undefined && typeof value.enabled !== "boolean") return "`enabled` must be a boolean";
  if (value.tools !== undefined && !isStringArray(value.tools)) return "`tools` must be an array of strings";
  const timeout = value.startTimeoutMs;
  if (
    timeout !== undefined &&
    (typeof timeout !== "number" ||
      !Number.isInteger(timeout) ||
      timeout < 1 ||
      timeout > MAX_MCP_START_TIMEOUT_MS)
  )
    return `\`startTimeoutMs\` must be an integer from 1 to ${MAX_MCP_START_TIMEOUT_MS}`;
  return undefined;
}

function scopeServers(
  settings: Record<string, unknown> | null,
  origin: "global" | "project",
  warnings: ConfigWarning[],
): ConfiguredMcpServer[] {
  const section = settings?.mcpServers;
  if (section === undefined) return [];
  if (!isPlainObject(section)) {
    warnings.push({ source: "settings", message: `${origin} setting mcpServers must be an object; ignored` });
    return [];
  }
  const servers: ConfiguredMcpServer[] = [];
  for (const [name, config] of Object.entries(section)) {
    const problem = name.length === 0 ? "needs a non-empty name" : mcpServerConfigProblem(config);
    if (problem !== undefined) {
      warnings.push({
        source: "settings",
        message: `${origin} setting ${formatDottedKey(["mcpServers", name])} ${problem}; server skipped`,
      });
      continue;
    }
    servers.push({ name, origin, config: config as McpServerSettings });
  }
  return servers;
}

/**
 * The configured MCP servers of a thread, global first. Pass `project` only for a
 * trusted project (`LoadedSettings.projectSettings` is already null otherwise).
 */
export function configuredMcpServers(
  global: Record<string, unknown> | null,
  project: Record<string, unknown> | null,
  warnings: ConfigWarning[] = [],
): ConfiguredMcpServer[] {
  const byName = new Map<string, ConfiguredMcpServer>();
  for (const server of scopeServers(global, "global", warnings)) byName.set(server.name, server);
  for (const server of scopeServers(project, "project", warnings)) byName.set(server.name, server);
  return [...byName.values()];
}
