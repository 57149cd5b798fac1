import type { PrefixGrant, SessionGrants, ShellKind } from "./session-grants.ts";
import { shellPrefix } from "./shell-prefix.ts";

export { emptyGrants, type PrefixGrant, type SessionGrants, type ShellKind } from "./session-grants.ts";

/** Returns grants that also remember `toolName` (no-op if already remembered). */
export function withToolGrant(grants: SessionGrants, toolName: string): SessionGrants {
  if (grants.tools.includes(toolName)) return grants;
  return { tools: [...grants.tools, toolName], prefixes: grants.prefixes };
}

/** Returns grants that also remember `grant` (no-op if an identical one exists). */
export function withPrefixGrant(grants: SessionGrants, grant: PrefixGrant): SessionGrants {
  if (grants.prefixes.some((g) => g.shell === grant.shell && samePrefix(g.prefix, grant.prefix)))
    return grants;
  const copy: PrefixGrant = { shell: grant.shell, prefix: [...grant.prefix] };
  return { tools: grants.tools, prefixes: [...grants.prefixes, copy] };
}

/** A prefix as one line for display; prefix words never contain spaces, so this is unambiguous. */
export function formatShellPrefix(prefix: readonly string[]): string {
  return prefix.join(" ");
}

/** Word-for-word equality of two prefixes. */
export function samePrefix(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === null || b === null) return false;
  return a.length === b.length && a.every((word, i) => word === b[i]);
}

/**
 * True when `command` is covered by `grant`: the command, analysed on its own in the
 * grant's shell, yields exactly the granted prefix. Never a string-prefix test.
 */
export function grantCovers(grant: PrefixGrant, command: string): boolean {
  if (grant.prefix.length === 0) return false;
  return samePrefix(shellPrefix(command, grant.shell), grant.prefix);
}

/** The prefix grant in `grants` covering `command` in `shell`, if any. */
export function findCoveringGrant(
  grants: SessionGrants,
  command: string,
  shell: ShellKind,
): PrefixGrant | undefined {
  const prefix = shellPrefix(command, shell);
  if (prefix === null) return undefined;
  return grants.prefixes.find((g) => g.shell === shell && samePrefix(g.prefix, prefix));
}
