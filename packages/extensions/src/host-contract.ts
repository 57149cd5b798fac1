/**
 * The contract between a thread and its extensions: the hooks the thread manager calls at
 * its hook points, the host object a thread holds, and the port through which extension
 * actions reach exactly that thread. The thread manager re-exports these names from
 * `extension-hooks.ts`; this package implements them, the manager only calls them.
 */
import type { AgentToolResult, AnyAgentTool, ToolOperations } from "@knightcode/agent";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  ImageContent,
  Message,
  Model,
  ProviderConfig as RegistryProviderConfig,
  ThinkingLevel,
  ToolResultMessage,
} from "@knightcode/ai";
import type { ExtensionFlag, ExtensionFlagArg, Warning } from "@knightcode/app-server-protocol";
import type {
  SessionBeforeCompactEvent,
  SessionBeforeCompactResult,
  SessionBeforeTreeEvent,
  SessionBeforeTreeResult,
  SessionCompactEvent,
  SessionCompactFailedEvent,
} from "@knightcode/compaction";
import type {
  AgentMessage,
  BranchSummaryEntry,
  CustomMessage,
  NewEntry,
  SessionEntry,
  SessionHeader,
} from "@knightcode/session-store";
import type { ContextUsage, ExtensionCommandContext, ExtensionUIContext } from "./api-types.ts";

/** What `ctx` tells an extension about its host. */
export interface ExtensionHostContext {
  threadId: string;
  cwd: string;
  mode: "terminal" | "desktop" | "print";
  hasUI: boolean;
}

/** Result of the `input` hook: go on (possibly transformed) or consume the input. */
export type InputHookResult =
  | { action: "continue"; text?: string; images?: ImageContent[] }
  | { action: "handled" };

/** What `before_agent_start` may change: the turn's system prompt, and a message injected after the prompt. */
export interface BeforeAgentStartHookResult {
  systemPrompt?: string;
  message?: Omit<CustomMessage, "role" | "timestamp">;
}

/** A tool result patch from `tool_result`; omitted fields keep their values. */
export interface ToolResultPatch {
  content?: ToolResultMessage["content"];
  details?: unknown;
  isError?: boolean;
}

/** A session move an extension refused, with the extension that refused it. */
export interface SessionMoveCancel {
  cancel: true;
  /** The refusing extension's path. */
  path: string;
}

/** An observer hook's answer: a promise while some handler still runs, else nothing. */
export type ObserverAnswer = Promise<void> | undefined;

/** What a hook that may answer resolves to; `void` so observers written as `async () => {}` fit. */
// biome-ignore lint/suspicious/noConfusingVoidType: observer hooks return void.
export type HookAnswer<T> = Promise<T | undefined | void>;

/** The hooks a thread's extensions may register, one method per event. */
export interface ExtensionHooks {
  /** After the thread loaded (or reloaded its extensions). */
  sessionStart?(event: { reason: "startup" | "reload" | "new" | "resume" | "fork" }): Promise<void>;
  /** Input of a start, queued input or steer, before it reaches the agent. */
  input?(event: {
    text: string;
    images: ImageContent[];
    source: "start" | "queue" | "steer";
  }): Promise<InputHookResult>;
  /**
   * Before the run: may replace the turn's system prompt or inject a message. The thread
   * manager passes `prompt` and `systemPrompt` when it has them.
   */
  beforeAgentStart?(event: {
    turnId: string;
    prompt?: string;
    images?: ImageContent[];
    systemPrompt?: string;
    /** The names of the tools the run starts with (pi's `systemPromptOptions.selectedTools`). */
    selectedTools?: string[];
  }): HookAnswer<BeforeAgentStartHookResult>;
  /** The run begins (once per prompt, after `before_agent_start`). */
  agentStart?(event: { turnId: string }): Promise<void>;
  /** An agent turn (one model response and its tool calls) begins. */
  turnStart?(event: { turnId: string; turnIndex?: number }): Promise<void>;
  turnEnd?(event: {
    turnId: string;
    turnIndex?: number;
    message: AssistantMessage;
    toolResults: ToolResultMessage[];
  }): Promise<void>;
  agentEnd?(event: { turnId: string; aborted: boolean; messages?: AgentMessage[] }): Promise<void>;
  agentBeforeSettle?(event: { turnId: string }): Promise<void>;
  /** A provider answered with a success status, before its stream is read. */
  afterProviderResponse?(event: { status: number; headers: Record<string, string> }): Promise<void>;
  /**
   * Observers of the agent's progress (pi's fire-and-forget events): the thread manager
   * dispatches them as they happen without holding the agent up; the turn settles after
   * them. Each calls every handler at once and returns a promise only when some handler
   * answered with one (so a per-delta event costs no allocation beyond its payload).
   */
  messageStart?(event: { message: AgentMessage }): ObserverAnswer;
  /** One streamed delta; called per delta, so it only exists while someone listens. */
  messageUpdate?(event: {
    message: AssistantMessage;
    assistantMessageEvent: AssistantMessageEvent;
  }): ObserverAnswer;
  toolExecutionStart?(event: {
    toolCallId: string;
    toolName: string;
    args: Record<string, unknown>;
  }): ObserverAnswer;
  toolExecutionUpdate?(event: {
    toolCallId: string;
    toolName: string;
    args: Record<string, unknown>;
    partialResult: AgentToolResult;
  }): ObserverAnswer;
  toolExecutionEnd?(event: {
    toolCallId: string;
    toolName: string;
    result: AgentToolResult;
    isError: boolean;
  }): ObserverAnswer;
  /** Sees each provider request body; a returned `payload` replaces it. */
  beforeProviderRequest?(event: { payload: unknown }): Promise<{ payload: unknown } | undefined>;
  /** Replaces the messages of one model request (never the stored context). */
  context?(event: { messages: Message[] }): Promise<{ messages?: Message[] } | undefined>;
  /**
   * May drop a finished message (its item is withdrawn with `item/removed`) or replace it
   * (`message`, same role).
   */
  messageEnd?(event: {
    message: AgentMessage;
  }): Promise<{ action: "keep"; message?: AgentMessage } | { action: "drop" }>;
  /** May block a tool call with a reason the model reads; `input` may be changed in place. */
  toolCall?(event: {
    toolCallId: string;
    toolName: string;
    input: Record<string, unknown>;
  }): Promise<{ action: "allow" } | { action: "block"; reason: string }>;
  /** May patch a tool's result before the model sees it. */
  toolResult?(event: {
    toolCallId: string;
    toolName: string;
    isError: boolean;
    input?: Record<string, unknown>;
    content?: ToolResultMessage["content"];
    details?: unknown;
  }): HookAnswer<ToolResultPatch>;
  /** May cancel a compaction or supply its summary. */
  sessionBeforeCompact?(event: SessionBeforeCompactEvent): Promise<SessionBeforeCompactResult>;
  sessionCompact?(event: SessionCompactEvent): Promise<void>;
  sessionCompactFailed?(event: SessionCompactFailedEvent): Promise<void>;
  /** May cancel branch navigation or supply its summary. */
  sessionBeforeTree?(event: SessionBeforeTreeEvent): Promise<SessionBeforeTreeResult>;
  /** The leaf moved (`thread/tree/navigate`), with the branch summary written there, if any. */
  sessionTree?(event: {
    newLeafId: string | null;
    oldLeafId: string | null;
    summaryEntry?: BranchSummaryEntry;
    fromExtension?: boolean;
  }): Promise<void>;
  /** Before `/new` replaces this thread's session: the first `{cancel: true}` refuses it. */
  sessionBeforeSwitch?(event: {
    reason: "new" | "resume";
    targetSessionFile?: string;
  }): Promise<SessionMoveCancel | undefined>;
  /** Before this thread is forked (`thread/fork`, `/fork`): the first `{cancel: true}` refuses it. */
  sessionBeforeFork?(event: {
    entryId: string;
    position: "before" | "at";
  }): Promise<SessionMoveCancel | undefined>;
  /** The user's `!cmd`: may answer in place of running it. */
  userBash?(event: { command: string; excludeFromContext: boolean; cwd: string }): HookAnswer<{
    result?: { output: string; exitCode: number | undefined; cancelled: boolean; truncated: boolean };
  }>;
  modelSelect?(event: {
    model: Model;
    previousModel: Model | undefined;
    source: "set" | "cycle" | "restore";
  }): Promise<void>;
  thinkingLevelSelect?(event: { level: ThinkingLevel; previousLevel: ThinkingLevel }): Promise<void>;
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
  /** A command context of this host's extensions (pi's `withSession` gets the new session's). */
  commandContext?(): ExtensionCommandContext;
  /**
   * Tools the extensions registered, for the thread's cwd. A tool named like a built-in
   * replaces it. Absent: no extension tools.
   */
  tools?(): AnyAgentTool[];
  /**
   * Model providers the extensions registered, checked and in the model registry's form;
   * the manager adds them to its model source when the thread loads.
   */
  providers?(): RegistryProviderConfig[];
  /** Names of the active tools when an extension chose them (`setActiveTools`); undefined: all. */
  activeTools?(): string[] | undefined;
  /**
   * Resource paths the extensions named at `resources_discover` (pi's event), added to the
   * thread's skills and prompt templates. Absent: none.
   */
  resources?(): { skillPaths: string[]; promptPaths: string[]; themePaths: string[] };
  /** Paths of the extensions that loaded, in load order. Absent: not known. */
  loaded?(): string[];
  /** Command-line flags the extensions registered, with their values. Absent: none. */
  flags?(): ExtensionFlag[];
  /** Problems found while loading, reported in the thread's start/resume warnings. */
  warnings: Warning[];
  /** Shuts the extensions down (`session_shutdown`); every captured API and `ctx` turns stale. */
  dispose(reason?: "quit" | "reload" | "new" | "resume" | "fork", targetSessionFile?: string): Promise<void>;
}

/** A read-only view of the thread's session, as extensions see it. */
export interface SessionView {
  readonly header: SessionHeader;
  readonly path: string | undefined;
  readonly entries: readonly SessionEntry[];
  readonly name: string | undefined;
  readonly leafId: string | null;
  branch(): readonly SessionEntry[];
}

/** What replaces the session: a new empty one, or a fork of the current one at an entry. */
export type SessionReplaceRequest =
  | { kind: "new"; parentSession?: string }
  | { kind: "fork"; entryId: string; position: "before" | "at" };

/** The new session while `setup` runs: read it, append to it. */
export interface ReplacementSession {
  view: SessionView;
  append(entry: NewEntry): SessionEntry;
}

/**
 * What extension actions may do to their thread. The thread manager implements it for
 * exactly one thread; every method refuses once that thread unloaded.
 */
export interface ExtensionThreadPort {
  /** A warning after load: a subscriber `warning` with the thread ID. */
  warn(warning: Warning): void;
  session(): SessionView;
  model(): Model | undefined;
  listModels(): Promise<Model[]>;
  findModel(provider: string, id: string): Promise<Model | undefined>;
  getApiKey(model: Model): Promise<string | undefined>;
  isIdle(): boolean;
  /** The running turn's signal, undefined while idle. */
  signal(): AbortSignal | undefined;
  abort(): void;
  hasPendingMessages(): boolean;
  contextUsage(): ContextUsage | undefined;
  /** The last system prompt a turn of this thread used ("" before the first turn). */
  systemPrompt(): string;
  appendEntry(customType: string, data: unknown): void;
  setSessionName(name: string): void;
  setLabel(entryId: string, label: string | undefined): void;
  /** A custom message into the context; see `SendMessageOptions`. */
  sendMessage(
    message: Omit<CustomMessage, "role" | "timestamp">,
    options: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" },
  ): void;
  sendUserMessage(text: string, images: ImageContent[], options: { deliverAs?: "steer" | "followUp" }): void;
  compact(customInstructions: string | undefined): Promise<void>;
  setModel(model: Model): Promise<boolean>;
  thinkingLevel(): ThinkingLevel;
  setThinkingLevel(level: ThinkingLevel): void;
  /** Resolves when no turn runs. */
  waitForIdle(): Promise<void>;
  /** Reloads this thread's extensions (`/reload`). */
  reloadExtensions?(): Promise<void>;
  /**
   * pi's `ctx.newSession()` / `ctx.fork()` from a command handler: the thread's session is
   * replaced as `/new` and `/fork` replace it (the guards asked first, the caller's client
   * moved with `thread/replaced`). `setup` runs against the new session before anything
   * else can reach it. `cancelled` when a `session_before_*` guard refused.
   */
  replaceSession?(
    request: SessionReplaceRequest,
    setup?: (session: ReplacementSession) => Promise<void>,
  ): Promise<{ cancelled: boolean; replacement?: ExtensionHost }>;
  /**
   * The host's `providers()` changed after load: pi's `registerProvider` and
   * `unregisterProvider` from a command or hook take effect at once, without `/reload`.
   */
  providersChanged?(): void;
}

/**
 * Builds a thread's extension host; called once per load. A factory backed by a module
 * cache reports its inactive entries (`server/diagnostics.inactiveFactories`).
 */
export type ExtensionHostFactory = ((options: ExtensionHostOptions) => Promise<ExtensionHost>) & {
  inactiveFactories?: () => number;
  /**
   * Whether a host built from these options would run an extension (discovery finds an
   * entry module), answered from disk without loading anything. The thread manager asks
   * before it loads a thread only for its extensions' sake (a fork of an unloaded thread).
   * Absent: it cannot tell, so it assumes there is one.
   */
  findsExtensions?: (options: ExtensionDiscoveryOptions) => Promise<boolean>;
};

/** The part of a host's options discovery reads. */
export type ExtensionDiscoveryOptions = Pick<
  ExtensionHostOptions,
  "context" | "extensionPaths" | "agentDir" | "settings" | "trusted" | "projectDir"
>;

/** What a thread's extension host is built from. */
export interface ExtensionHostOptions {
  context: ExtensionHostContext;
  /** `-e` paths, trusted explicitly. */
  extensionPaths: readonly string[];
  /**
   * Flags from the server's command line no built-in option took (`--plan`, `--ssh h`):
   * `getFlag` answers with them once an extension registered the flag; any left
   * unregistered after loading is a load warning.
   */
  flagArgs?: readonly ExtensionFlagArg[];
  /** The agent dir (`<agent-dir>/extensions/`). */
  agentDir?: string;
  /** Merged settings (global, then the trusted project's): `extensions`, `extensionHookTimeoutMs`. */
  settings?: Record<string, unknown>;
  /** Whether the project is trusted: only then `.knightcode/extensions/` loads. */
  trusted?: boolean;
  /** The project's real path as trust was decided for it. */
  projectDir?: string;
  /** The thread the extensions act on. Absent: actions throw (a host without a thread). */
  thread?: ExtensionThreadPort;
  /** Why the host is built (`session_start.reason`). */
  reason?: "startup" | "reload" | "new" | "resume" | "fork";
  /** The transcript of the session this one replaces (`session_start.previousSessionFile`, for `new` and `fork`). */
  previousSessionFile?: string;
  /** The UI dialogs go to; absent: the no-UI behaviour. */
  ui?: ExtensionUIContext;
  /**
   * Whether `ui` can answer right now (`ctx.hasUI`), asked each time; absent: a plugged-in
   * `ui` always can. The thread manager's UI answers only while a subscriber shows dialogs.
   */
  uiAvailable?: () => boolean;
  /**
   * The thread's tool operations (its sandbox when the thread is sandboxed): `exec` runs
   * through them and `ctx.toolOperations()` returns them. Absent: the local backend.
   */
  toolOperations?: ToolOperations;
}
