/**
 * The environment of a stdio MCP server: a minimal base (PATH, HOME, LANG) from ours
 * plus exactly what its config names. KnightCode's own variables (API keys, tokens)
 * never reach a server unless the user writes them into that server's `env`.
 */

/** Variables a stdio server inherits from KnightCode's environment. */
export const INHERITED_ENV_VARS: readonly string[] = ["PATH", "HOME", "LANG"];

/** The server's environment: the inherited base, then the config's `env` over it. */
export function serverEnvironment(
  ours: Record<string, string | undefined>,
  configured: Record<string, string> | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV_VARS) {
    const value = ours[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...(configured ?? {}) };
}
