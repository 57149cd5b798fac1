/**
 * `app-server`, `acp` and `web` keep an unknown long option for the extensions (`--plan`), but a
 * mistyped server option (`--lisen x`) must not start a server. Only an extension that
 * loads for every thread can register a process-wide flag: a `-e` path, the global
 * settings' `extensions`, `packages` or pi compatibility, or `<agent-dir>/extensions/`.
 * When none of those names an extension, the first kept flag is a usage error, as it is
 * for the terminal agent. Project-local extensions (a trusted project's
 * `.knightcode/extensions/`, its packages) load per thread, after the process started
 * with its flags, so they do not count.
 */
import type { ServerOptions } from "./args.ts";

/**
 * The usage error for flags no extension can take, or undefined. Reads only when there
 * are kept flags and no `-e`: a plain `knightcode app-server` pays nothing for it.
 */
export async function unclaimedServerFlag(
  options: Pick<ServerOptions, "extensions" | "extensionFlags">,
  cwd: string,
  env: Record<string, string | undefined> = process.env,
): Promise<string | undefined> {
  if (options.extensionFlags.length === 0 || options.extensions.length > 0) return undefined;
  const [{ loadSettings, resolveAgentDir }, { createLazyExtensionHostFactory }] = await Promise.all([
    import("@knightcode/config"),
    import("@knightcode/extensions/host"),
  ]);
  const agentDir = resolveAgentDir(env);
  const { globalSettings } = await loadSettings({ agentDir, cwd });
  // discovery as a thread does it, with the project left out (untrusted, global settings only)
  const found = await createLazyExtensionHostFactory().findsExtensions({
    context: { threadId: "", cwd, mode: "desktop", hasUI: false },
    extensionPaths: [],
    agentDir,
    settings: globalSettings ?? {},
    trusted: false,
  });
  // named as typed before its value: `--lisen x` and `--lisen=x` are both `--lisen`
  return found ? undefined : `unknown option '--${options.extensionFlags[0]!.name}'`;
}
