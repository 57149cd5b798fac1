/**
 * The grants a loaded thread starts with, apart from the code that extends and checks
 * them (`grants.ts`, which needs the shell parser): creating a thread needs only this.
 */

/** The two shell dialects whose grants are kept apart. */
export type ShellKind = "bash" | "powershell";

/** A remembered `acceptPrefixForSession`: the exact prefix, for one shell dialect. */
export interface PrefixGrant {
  readonly shell: ShellKind;
  readonly prefix: readonly string[];
}

/**
 * What the user accepted for the rest of this thread's load. Immutable: every change
 * returns a new value, so a thread manager can hold it per load and drop it on unload.
 */
export interface SessionGrants {
  /** Non-shell tool names accepted with `acceptForSession`. */
  readonly tools: readonly string[];
  /** Shell prefixes accepted with `acceptPrefixForSession`. */
  readonly prefixes: readonly PrefixGrant[];
}

/** Grants for a freshly loaded thread: nothing remembered. */
export function emptyGrants(): SessionGrants {
  return { tools: [], prefixes: [] };
}
