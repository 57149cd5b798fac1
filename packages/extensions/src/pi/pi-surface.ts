/**
 * pi's names on KnightCode's extension API, `ctx` and `ctx.ui` that KnightCode itself
 * does not have. Each is what pi does when no terminal UI is attached: keyboard
 * shortcuts, message renderers, footers, headers, custom components and editors are
 * accepted and never shown; `ctx.ui.custom()` resolves at once to `undefined` (so no
 * extension waits on a dialog nobody sees); `navigateTree` and `switchSession` from a
 * command report `cancelled`. KnightCode extensions get the same names; they cost nothing.
 */
import type { Model } from "@knightcode/ai";
import type { SessionEntry } from "@knightcode/session-store";
import type { ExtensionContext, ExtensionUIContext } from "../api-types.ts";
import { plainTheme } from "./theme.ts";

const noop = () => {};

/** API methods pi has and KnightCode's runtime does not: accepted, inert without a terminal. */
export function piApiExtras(ui: ExtensionUIContext): Record<string, unknown> {
  return {
    registerShortcut: noop,
    // drawn by the terminal agent (its thread UI keeps them); inert elsewhere
    registerMessageRenderer: (customType: string, renderer: unknown) =>
      (ui as { registerMessageRenderer?: (type: string, r: unknown) => void }).registerMessageRenderer?.(
        String(customType),
        renderer,
      ),
    registerEditor: noop,
  };
}

/** `ctx.ui` additions: the terminal-only calls, inert; dialogs with components resolve at once. */
export function piUiExtras(ui: ExtensionUIContext): Record<string, unknown> {
  let toolsExpanded = false;
  const theme = plainTheme();
  return {
    theme,
    custom: async () => undefined,
    onTerminalInput: () => noop,
    setHiddenThinkingLabel: noop,
    setFooter: noop,
    setHeader: noop,
    addAutocompleteProvider: noop,
    setEditorComponent: noop,
    getEditorComponent: () => undefined,
    getAllThemes: () => [{ name: "plain", path: undefined }],
    getTheme: (name: string) => (name === "plain" ? theme : undefined),
    setTheme: () => ({ success: false, error: "Themes need a terminal UI" }),
    getToolsExpanded: () => toolsExpanded,
    setToolsExpanded: (expanded: boolean) => {
      toolsExpanded = expanded;
    },
    // keep the base methods reachable when a caller spreads the object
    notify: ui.notify,
  };
}

/** The label of an entry: the last `label` entry targeting it decides. */
export function labelOf(entries: readonly SessionEntry[], entryId: string): string | undefined {
  let label: string | undefined;
  for (const entry of entries) {
    if (entry.type === "label" && entry.targetId === entryId) label = entry.label;
  }
  return label;
}

/** pi's `modelRegistry.getApiKeyAndHeaders(model)`; takes a model or KnightCode's pending `find()`. */
export function getApiKeyAndHeaders(ctx: ExtensionContext) {
  return async (model: Model | Promise<Model | undefined>) => {
    const resolved = await model;
    if (!resolved) return { ok: false as const, error: "No model" };
    try {
      const apiKey = await ctx.modelRegistry.getApiKey(resolved);
      return { ok: true as const, apiKey, headers: resolved.headers ?? {} };
    } catch (error) {
      return { ok: false as const, error: error instanceof Error ? error.message : String(error) };
    }
  };
}

/**
 * Command-context methods of pi's that KnightCode has no path for: the thread stays where
 * it is (`newSession` and `fork` are real: `session-replace.ts`).
 */
export function piCommandExtras(): Record<string, unknown> {
  const cancelled = async () => ({ cancelled: true });
  return { navigateTree: cancelled, switchSession: cancelled };
}

/** Adds each of `extras` that `target` lacks (an embedder's own methods always win). */
export function addMissing<T extends object>(target: T, extras: Record<string, unknown>): T {
  for (const [key, value] of Object.entries(extras)) {
    if (!(key in target)) (target as Record<string, unknown>)[key] = value;
  }
  return target;
}
