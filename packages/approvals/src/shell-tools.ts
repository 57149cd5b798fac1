import type { ShellKind } from "./grants.ts";

/** Tool names treated as shells, and their dialect. */
export const SHELL_TOOLS: ReadonlyMap<string, ShellKind> = new Map<string, ShellKind>([
  ["bash", "bash"],
  ["powershell", "powershell"],
  ["pwsh", "powershell"],
]);

/**
 * The shell dialect of a tool, or null when it is not a shell. Case-insensitive: a tool
 * called `Bash` or `PowerShell` is still a shell and must never be granted by name.
 */
export function shellKindOf(toolName: string): ShellKind | null {
  if (typeof toolName !== "string") return null;
  return SHELL_TOOLS.get(toolName.toLowerCase()) ?? null;
}
