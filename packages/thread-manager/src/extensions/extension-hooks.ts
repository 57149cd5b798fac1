/**
 * The extension seam: the hook interface the thread runtime calls at the points NOTES.md
 * lists is defined by `@knightcode/extensions` (which implements it); this file re-exports
 * it with the no-op host a manager without extensions uses. Each hook is optional; an
 * absent hook means "carry on".
 */
import type { ExtensionHostFactory } from "@knightcode/extensions";
import type { Warning } from "../shapes.ts";

export type {
  ExtensionHooks,
  ExtensionHost,
  ExtensionHostContext as ExtensionContext,
  ExtensionHostFactory,
  ExtensionHostOptions,
  ExtensionThreadPort,
  InputHookResult,
} from "@knightcode/extensions";

/** The host every thread gets until the extension runtime exists. */
export const noopExtensionHostFactory: ExtensionHostFactory = Object.assign(
  async () => ({ hooks: {}, commands: [], warnings: [], dispose: async () => {} }),
  { findsExtensions: async () => false },
);

/**
 * Runs a hook so an extension error never crashes the thread: the error becomes a
 * warning and the fallback answer is used.
 */
export async function callHook<T>(
  run: (() => Promise<T>) | undefined,
  fallback: T,
  onWarning: (warning: Warning) => void,
): Promise<T> {
  if (!run) return fallback;
  try {
    return await run();
  } catch (error) {
    onWarning({
      source: "extension",
      message: `Extension hook failed: ${(error as Error)?.message ?? error}`,
    });
    return fallback;
  }
}
