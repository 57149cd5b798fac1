/**
 * The extension hook interface the thread runtime calls at the points NOTES.md lists.
 * The extension runtime implements it later; until then every thread gets the no-op
 * host. Each hook is optional; an absent hook means "carry on".
 */
import type { AssistantMessage, ImageContent, ToolResultMessage } from "@knightcode/ai";
import type {
  SessionBeforeCompactEvent,
  SessionBeforeCompactResult,
  SessionBeforeTreeEvent,
  SessionBeforeTreeResult,
  SessionCompactEvent,
  SessionCompactFailedEvent,
} from "@knightcode/compaction";
import type { AgentMessage } from "@knightcode/session-store";
import type { Warning } from "./shapes.ts";

/** What `ctx` tells an extension about its host. */
export interface ExtensionContext {
  threadId: string;
  cwd: string;
  mode: "terminal" | "desktop" | "print";
  hasUI: boolean;
}

/** Result of the `input` hook: go on (possibly transformed) or consume the input. */
export type InputHookResult =
  | { action: "continue"; text?: string; images?: ImageContent[] }
  | { action: "handled" };

/** The hooks a thread's extensions may register, one method per event. */
export interface ExtensionHooks {
  /** Input of a start, queued input or steer, before it reaches the agent. */
  input?(event: {
    text: string;
    images: ImageContent[];
    source: "start" | "queue" | "steer";
  }): Promise<InputHookResult>;
  beforeAgentStart?(event: { turnId: string }): Promise<void>;
  turnStart?(event: { turnId: string }): Promise<void>;
  turnEnd?(event: {
    turnId: string;
    message: AssistantMessage;
    toolResults: ToolResultMessage[];
  }): Promise<void>;
  agentEnd?(event: { turnId: string; aborted: boolean }): Promise<void>;
  agentBeforeSettle?(event: { turnId: string }): Promise<void>;
  /** May drop a finished message; a dropped message's item is withdrawn with `item/removed`. */
  messageEnd?(event: { message: AgentMessage }): Promise<{ action: "keep" } | { action: "drop" }>;
  /** May block a tool call with a reason the model reads. */
  toolCall?(event: {
    toolCallId: string;
    toolName: string;
    input: Record<string, unknown>;
  }): Promise<{ action: "allow" } | { action: "block"; reason: string }>;
  toolResult?(event: { toolCallId: string; toolName: string; isError: boolean }): Promise<void>;
  /** May cancel a compaction or supply its summary. */
  sessionBeforeCompact?(event: SessionBeforeCompactEvent): Promise<SessionBeforeCompactResult>;
  sessionCompact?(event: SessionCompactEvent): Promise<void>;
  sessionCompactFailed?(event: SessionCompactFailedEvent): Promise<void>;
  /** May cancel branch navigation or supply its summary. */
  sessionBeforeTree?(event: SessionBeforeTreeEvent): Promise<SessionBeforeTreeResult>;
}

/** One thread's loaded extensions. */
export interface ExtensionHost {
  hooks: ExtensionHooks;
  /** Slash commands the extensions registered (without the leading `/`). */
  commands: { name: string; description: string }[];
  /**
   * Runs a registered command typed as `/<name> args` in `turn/start` text; the input
   * is then `handled` (or `cancelled` when interrupted meanwhile). Absent: extension
   * commands are left to the `input` hook.
   */
  runCommand?(name: string, args: string): Promise<void>;
  /** Problems found while loading, reported in the thread's start/resume warnings. */
  warnings: Warning[];
  dispose(): Promise<void>;
}

/** Builds a thread's extension host; called once per load. */
export type ExtensionHostFactory = (options: {
  context: ExtensionContext;
  /** `-e` paths, trusted explicitly. */
  extensionPaths: readonly string[];
}) => Promise<ExtensionHost>;

/** The host every thread gets until the extension runtime exists. */
export const noopExtensionHostFactory: ExtensionHostFactory = async () => ({
  hooks: {},
  commands: [],
  warnings: [],
  dispose: async () => {},
});

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
