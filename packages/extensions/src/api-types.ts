/**
 * What an extension sees: the `knightcode` API its default export receives, the `ctx`
 * every handler and tool gets, the events with their payloads and results. The names and
 * shapes follow the pi coding agent's extension API, so pi extensions map onto it; where
 * KnightCode adds something (dropping a message at `message_end`, `agent_before_settle`,
 * `session_compact_failed`) it is marked.
 */
import type { AgentToolResult, ToolOperations } from "@knightcode/agent";
import type {
  Api,
  AssistantMessage,
  AssistantMessageEvent,
  ImageContent,
  Model,
  StreamFunction,
  TextContent,
  ThinkingLevel,
  ToolResultMessage,
} from "@knightcode/ai";
import type { CompactionPreparation, CompactionReason } from "@knightcode/compaction";
import type {
  AgentMessage,
  BranchSummaryEntry,
  CompactionEntry,
  SessionEntry,
  SessionHeader,
} from "@knightcode/session-store";
import type { Static, TSchema } from "typebox";

export type { AgentMessage, AgentToolResult, Model, ThinkingLevel };

/** Where the extension runs: the desktop app server, the terminal UI, or print mode. */
export type ExtensionMode = "desktop" | "terminal" | "print";

// ---------------------------------------------------------------------------------------
// UI
// ---------------------------------------------------------------------------------------

/** Options of a dialog: it resolves to its "no answer" value on abort or timeout. */
export interface ExtensionUIDialogOptions {
  signal?: AbortSignal;
  /** Milliseconds until the dialog gives up. */
  timeout?: number;
}

/** `setWorkingIndicator`'s options (pi's): the frames drawn in turn, one per `intervalMs`; none hides the glyph. */
export interface WorkingIndicatorOptions {
  frames: string[];
  intervalMs?: number;
}

/** Options of `setWidget`: where the widget sits next to the editor (above by default). */
export interface ExtensionWidgetOptions {
  placement?: "aboveEditor" | "belowEditor";
}

/**
 * The dialogs and display calls an extension may use. Every mode has one: without a UI
 * (`hasUI: false`) dialogs resolve at once to `undefined`/`false` and display calls do
 * nothing. A terminal or desktop client plugs a real one in through `ExtensionUIFactory`.
 */
export interface ExtensionUIContext {
  select(title: string, options: string[], opts?: ExtensionUIDialogOptions): Promise<string | undefined>;
  confirm(title: string, message: string, opts?: ExtensionUIDialogOptions): Promise<boolean>;
  input(title: string, placeholder?: string, opts?: ExtensionUIDialogOptions): Promise<string | undefined>;
  editor(title: string, prefill?: string): Promise<string | undefined>;
  notify(message: string, type?: "info" | "warning" | "error"): void;
  setStatus(key: string, text: string | undefined): void;
  /** The working indicator's text while a turn runs; no argument restores the default. */
  setWorkingMessage(message?: string): void;
  /** The working indicator's glyph frames; no argument restores the default spinner. */
  setWorkingIndicator(options?: WorkingIndicatorOptions): void;
  /** Whether the working row shows at all while a turn runs (it does by default). */
  setWorkingVisible(visible: boolean): void;
  /** `content` undefined removes the widget. */
  setWidget(key: string, content: string[] | undefined, options?: ExtensionWidgetOptions): void;
  setTitle(title: string): void;
  setEditorText(text: string): void;
  getEditorText(): string;
  pasteToEditor(text: string): void;
}

// ---------------------------------------------------------------------------------------
// Context
// ---------------------------------------------------------------------------------------

/** A read-only view of the thread's session. */
export interface ReadonlySessionView {
  getHeader(): SessionHeader;
  getSessionId(): string;
  getSessionFile(): string | undefined;
  getCwd(): string;
  /** Every entry of the file, in order. */
  getEntries(): readonly SessionEntry[];
  /** The current branch, root first. */
  getBranch(): readonly SessionEntry[];
  getLeafId(): string | null;
  getEntry(id: string): SessionEntry | undefined;
  getSessionName(): string | undefined;
}

/** Models the thread can use. */
export interface ExtensionModelRegistry {
  getAll(): Promise<Model[]>;
  find(provider: string, id: string): Promise<Model | undefined>;
  getApiKey(model: Model): Promise<string | undefined>;
}

/** How full the context is. `tokens` is null when unknown (right after compaction). */
export interface ContextUsage {
  tokens: number | null;
  contextWindow: number;
  percent: number | null;
}

/** Options of `ctx.compact()`. */
export interface CompactOptions {
  customInstructions?: string;
  onComplete?: () => void;
  onError?: (error: Error) => void;
}

/** What every handler, command and tool receives besides its event. */
export interface ExtensionContext {
  mode: ExtensionMode;
  ui: ExtensionUIContext;
  /** False in desktop mode until the desktop app offers dialogs. */
  hasUI: boolean;
  /** The thread's working directory (never the server process's). */
  cwd: string;
  /** The thread this context belongs to. */
  threadId: string;
  sessionManager: ReadonlySessionView;
  modelRegistry: ExtensionModelRegistry;
  /** The thread's current model. */
  readonly model: Model | undefined;
  isIdle(): boolean;
  /** The running turn's signal; undefined while idle. */
  readonly signal: AbortSignal | undefined;
  /** Interrupts the running turn. */
  abort(): void;
  hasPendingMessages(): boolean;
  getContextUsage(): ContextUsage | undefined;
  compact(options?: CompactOptions): void;
  /** The system prompt of the running (or next) turn as built so far. */
  getSystemPrompt(): string;
  /**
   * The operations the thread's built-in tools act through — its bubblewrap sandbox when
   * the thread is sandboxed, else the host with credential hygiene. A tool that does its
   * file and process work through them stays inside the boundary; one that does not
   * runs on the host.
   */
  toolOperations(): ToolOperations;
}

/** A command handler's context: also waits for the thread to become idle and reloads. */
export interface ExtensionCommandContext extends ExtensionContext {
  waitForIdle(): Promise<void>;
  /** Shuts the thread's extensions down and loads them again. */
  reload(): Promise<void>;
}

// ---------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------

export interface SessionStartEvent {
  type: "session_start";
  reason: "startup" | "reload" | "new" | "resume" | "fork";
  previousSessionFile?: string;
}

export interface SessionShutdownEvent {
  type: "session_shutdown";
  reason: "quit" | "reload" | "new" | "resume" | "fork";
  targetSessionFile?: string;
}

/**
 * Before the session is replaced by another one: `/new` in `turn/start` (`reason: "new"`).
 * KnightCode has no session replacement that resumes another transcript, so `resume`
 * never comes (see docs/pi-compatibility.md).
 */
export interface SessionBeforeSwitchEvent {
  type: "session_before_switch";
  reason: "new" | "resume";
  targetSessionFile?: string;
}

/** `cancel: true` refuses the switch; nothing changes. */
export interface SessionBeforeSwitchResult {
  cancel?: boolean;
}

/**
 * Before this thread is forked (`thread/fork`, `/fork`). A KnightCode fork copies the
 * whole current branch, so `entryId` is the leaf ("" in a session without entries) and
 * `position` is always `"at"`.
 */
export interface SessionBeforeForkEvent {
  type: "session_before_fork";
  entryId: string;
  position: "before" | "at";
}

/** `cancel: true` refuses the fork; nothing changes. */
export interface SessionBeforeForkResult {
  cancel?: boolean;
}

export interface SessionBeforeCompactEvent {
  type: "session_before_compact";
  preparation: CompactionPreparation;
  branchEntries: readonly SessionEntry[];
  customInstructions?: string;
  /** KnightCode: why the compaction runs. */
  reason: CompactionReason;
  /** KnightCode: whether a successful compaction retries the failed attempt. */
  willRetry: boolean;
  signal: AbortSignal;
}

/** A summary an extension supplies instead of the model-written one. */
export interface ExtensionCompactionResult {
  summary: string;
  firstKeptEntryId?: string;
  tokensBefore?: number;
  details?: unknown;
}

export interface SessionBeforeCompactResult {
  cancel?: boolean;
  compaction?: ExtensionCompactionResult;
}

export interface SessionCompactEvent {
  type: "session_compact";
  compactionEntry: CompactionEntry;
  fromExtension: boolean;
  reason: CompactionReason;
  willRetry: boolean;
}

/** KnightCode: a compaction that failed, was cancelled or aborted. */
export interface SessionCompactFailedEvent {
  type: "session_compact_failed";
  reason: CompactionReason;
  errorMessage?: string;
  aborted: boolean;
  willRetry: boolean;
  fromExtension: boolean;
}

export interface SessionBeforeTreeEvent {
  type: "session_before_tree";
  preparation: unknown;
  signal: AbortSignal;
}

export interface SessionBeforeTreeResult {
  cancel?: boolean;
  summary?: { summary: string; details?: unknown };
}

export interface SessionTreeEvent {
  type: "session_tree";
  newLeafId: string | null;
  oldLeafId: string | null;
  summaryEntry?: BranchSummaryEntry;
  fromExtension?: boolean;
}

export interface ContextEvent {
  type: "context";
  /** A copy: change it freely and return the messages this one request should send. */
  messages: AgentMessage[];
}

export interface ContextEventResult {
  messages?: AgentMessage[];
}

export interface BeforeProviderRequestEvent {
  type: "before_provider_request";
  payload: unknown;
}

/** Returning anything but `undefined` replaces the payload. */
export type BeforeProviderRequestEventResult = unknown;

/** A provider answered a request with a success status, before its stream is read. */
export interface AfterProviderResponseEvent {
  type: "after_provider_response";
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
}

export interface BeforeAgentStartEvent {
  type: "before_agent_start";
  prompt: string;
  images?: ImageContent[];
  /** The system prompt as earlier handlers left it. */
  systemPrompt: string;
  /**
   * What the prompt was built from, as far as KnightCode's prompt maps onto pi's options:
   * the working directory and the run's tool names (pi also lists context files and skills).
   */
  systemPromptOptions: { cwd: string; selectedTools: string[] };
}

/** A message an extension puts into the context (stored as a `custom_message` entry). */
export interface ExtensionMessage<T = unknown> {
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display?: boolean;
  details?: T;
}

export interface BeforeAgentStartEventResult {
  message?: ExtensionMessage;
  systemPrompt?: string;
}

export interface AgentStartEvent {
  type: "agent_start";
}

export interface AgentEndEvent {
  type: "agent_end";
  messages: AgentMessage[];
  /** KnightCode: the run was interrupted. */
  aborted: boolean;
}

/** KnightCode: the run ended and the turn is about to settle (queued input waits for it). */
export interface AgentBeforeSettleEvent {
  type: "agent_before_settle";
}

export interface TurnStartEvent {
  type: "turn_start";
  turnIndex: number;
  timestamp: number;
}

export interface TurnEndEvent {
  type: "turn_end";
  turnIndex: number;
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
}

/** A message begins: the user's prompt, each assistant reply as it starts streaming, each tool result. */
export interface MessageStartEvent {
  type: "message_start";
  message: AgentMessage;
}

/** One streamed piece of an assistant reply; `message` is the reply so far. */
export interface MessageUpdateEvent {
  type: "message_update";
  message: AssistantMessage;
  assistantMessageEvent: AssistantMessageEvent;
}

export interface MessageEndEvent {
  type: "message_end";
  message: AgentMessage;
}

/**
 * `message` replaces the finished message (same role); KnightCode adds `drop: true`,
 * which keeps it out of the transcript and withdraws its item (`item/removed`).
 */
export interface MessageEndEventResult {
  message?: AgentMessage;
  drop?: boolean;
}

export interface ToolCallEvent {
  type: "tool_call";
  toolCallId: string;
  toolName: string;
  /** Mutable: changes reach the tool (no re-validation). */
  input: Record<string, unknown>;
}

export interface ToolCallEventResult {
  block?: boolean;
  /** What the model reads instead of a result. */
  reason?: string;
}

export interface ToolResultEvent {
  type: "tool_result";
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
  content: (TextContent | ImageContent)[];
  details: unknown;
  isError: boolean;
}

/** A partial patch: omitted fields keep their current values. */
export interface ToolResultEventResult {
  content?: (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
}

/** A tool begins to run (after `tool_call` let it through). */
export interface ToolExecutionStartEvent {
  type: "tool_execution_start";
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
}

/** A running tool reported partial output (bash's output so far). */
export interface ToolExecutionUpdateEvent {
  type: "tool_execution_update";
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  partialResult: AgentToolResult;
}

/** A tool finished (or was blocked); `result` is what it returned, before `tool_result` patches. */
export interface ToolExecutionEndEvent {
  type: "tool_execution_end";
  toolCallId: string;
  toolName: string;
  result: AgentToolResult;
  isError: boolean;
}

export interface ModelSelectEvent {
  type: "model_select";
  model: Model;
  previousModel: Model | undefined;
  source: "set" | "cycle" | "restore";
}

/** A new thinking level was set (`thread/settings/update` or `setThinkingLevel`). */
export interface ThinkingLevelSelectEvent {
  type: "thinking_level_select";
  level: ThinkingLevel;
  previousLevel: ThinkingLevel;
}

export interface UserBashEvent {
  type: "user_bash";
  command: string;
  excludeFromContext: boolean;
  cwd: string;
}

/** Returning `result` replaces running the command. */
export interface UserBashEventResult {
  result?: { output: string; exitCode: number | undefined; cancelled: boolean; truncated: boolean };
}

/** `interactive` (typed in the terminal), `rpc` (a protocol client), `extension` (`sendUserMessage`). */
export type InputSource = "interactive" | "rpc" | "extension";

export interface InputEvent {
  type: "input";
  text: string;
  images?: ImageContent[];
  source: InputSource;
}

export type InputEventResult =
  | { action: "continue" }
  | { action: "transform"; text: string; images?: ImageContent[] }
  | { action: "handled" };

/** pi's resource discovery: after `session_start`, an extension may name more resources. */
export interface ResourcesDiscoverEvent {
  type: "resources_discover";
  cwd: string;
  reason: "startup" | "reload";
}

/** Absolute paths of skill files (`SKILL.md`) or folders, prompt templates and themes. */
export interface ResourcesDiscoverResult {
  skillPaths?: string[];
  promptPaths?: string[];
  themePaths?: string[];
}

/** Every event by name with its payload and what a handler may return. */
export interface ExtensionEventMap {
  resources_discover: [ResourcesDiscoverEvent, ResourcesDiscoverResult];
  session_start: [SessionStartEvent, undefined];
  session_shutdown: [SessionShutdownEvent, undefined];
  session_before_switch: [SessionBeforeSwitchEvent, SessionBeforeSwitchResult];
  session_before_fork: [SessionBeforeForkEvent, SessionBeforeForkResult];
  session_before_compact: [SessionBeforeCompactEvent, SessionBeforeCompactResult];
  session_compact: [SessionCompactEvent, undefined];
  session_compact_failed: [SessionCompactFailedEvent, undefined];
  session_before_tree: [SessionBeforeTreeEvent, SessionBeforeTreeResult];
  session_tree: [SessionTreeEvent, undefined];
  context: [ContextEvent, ContextEventResult];
  before_provider_request: [BeforeProviderRequestEvent, BeforeProviderRequestEventResult];
  after_provider_response: [AfterProviderResponseEvent, undefined];
  before_agent_start: [BeforeAgentStartEvent, BeforeAgentStartEventResult];
  agent_start: [AgentStartEvent, undefined];
  agent_end: [AgentEndEvent, undefined];
  agent_before_settle: [AgentBeforeSettleEvent, undefined];
  turn_start: [TurnStartEvent, undefined];
  turn_end: [TurnEndEvent, undefined];
  message_start: [MessageStartEvent, undefined];
  message_update: [MessageUpdateEvent, undefined];
  message_end: [MessageEndEvent, MessageEndEventResult];
  tool_execution_start: [ToolExecutionStartEvent, undefined];
  tool_execution_update: [ToolExecutionUpdateEvent, undefined];
  tool_execution_end: [ToolExecutionEndEvent, undefined];
  tool_call: [ToolCallEvent, ToolCallEventResult];
  tool_result: [ToolResultEvent, ToolResultEventResult];
  model_select: [ModelSelectEvent, undefined];
  thinking_level_select: [ThinkingLevelSelectEvent, undefined];
  user_bash: [UserBashEvent, UserBashEventResult];
  input: [InputEvent, InputEventResult];
}

export type ExtensionEventName = keyof ExtensionEventMap;

/**
 * A handler of one event; it may answer synchronously or not at all (a handler that
 * answers nothing is a plain `void` function, hence `void` in the union).
 */
export type ExtensionHandler<E, R = undefined> = (event: E, ctx: ExtensionContext) => HandlerAnswer<R>;

// biome-ignore lint/suspicious/noConfusingVoidType: handlers that answer nothing return void.
type HandlerAnswer<R> = Promise<R | undefined | void> | R | undefined | void;

// ---------------------------------------------------------------------------------------
// Registrations
// ---------------------------------------------------------------------------------------

/** Streams a partial result while a tool runs. */
export type AgentToolUpdateCallback<TDetails = unknown> = (partial: AgentToolResult<TDetails>) => void;

/** A tool the model may call. A built-in's name overrides the built-in. */
export interface ToolDefinition<TParams extends TSchema = TSchema, TDetails = unknown> {
  name: string;
  label?: string;
  description: string;
  /** TypeBox schema; the model's arguments are validated against it. */
  parameters: TParams;
  /** Compatibility shim run before validation. */
  prepareArguments?: (args: unknown) => Static<TParams>;
  execute(
    toolCallId: string,
    params: Static<TParams>,
    signal: AbortSignal | undefined,
    onUpdate: AgentToolUpdateCallback<TDetails> | undefined,
    ctx: ExtensionContext,
  ): Promise<AgentToolResult<TDetails>>;
}

/** A slash command. */
export interface CommandOptions {
  description?: string;
  handler(args: string, ctx: ExtensionCommandContext): Promise<void> | void;
}

/** A command as `getCommands()` lists it. */
export interface SlashCommandInfo {
  name: string;
  description?: string;
  source: "extension" | "builtin";
  path?: string;
}

/** A flag an extension declares. */
export interface FlagOptions {
  description?: string;
  type: "boolean" | "string";
  default?: boolean | string;
}

/** A model an extension's provider offers. */
export interface ProviderModelConfig {
  id: string;
  name?: string;
  api?: Api | (string & {});
  baseUrl?: string;
  reasoning?: boolean;
  input?: ("text" | "image")[];
  cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
  contextWindow?: number;
  maxTokens?: number;
  headers?: Record<string, string>;
  compat?: Record<string, unknown>;
}

/**
 * A model provider an extension registers: one of the built-in wire formats at a base URL,
 * or (pi's `streamSimple`) the extension's own stream function under an API name of its own.
 */
export interface ProviderConfig {
  name?: string;
  baseUrl?: string;
  /** A literal key, the name of an environment variable holding it. */
  apiKey?: string;
  /** A built-in wire format; with `streamSimple`, the provider's own API name. */
  api?: Api | (string & {});
  headers?: Record<string, string>;
  models?: ProviderModelConfig[];
  /** Streams this provider's models; it receives pi's options (`reasoning`, `apiKey`, `signal`). */
  streamSimple?: StreamFunction;
}

/** Options of `sendMessage`. */
export interface SendMessageOptions {
  /** Start a turn for it when the thread is idle. */
  triggerTurn?: boolean;
  /** While a turn runs: join it (`steer`), follow it (`followUp`), or wait for the next prompt. */
  deliverAs?: "steer" | "followUp" | "nextTurn";
}

/** Options of `sendUserMessage`. */
export interface SendUserMessageOptions {
  deliverAs?: "steer" | "followUp";
}

/** Result of `exec`. */
export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number;
  killed: boolean;
}

/** Options of `exec`. */
export interface ExecOptions {
  signal?: AbortSignal;
  timeout?: number;
  cwd?: string;
}

/** A small publish/subscribe bus, one per thread. */
export interface EventBus {
  on(channel: string, handler: (data: unknown) => void): () => void;
  emit(channel: string, data: unknown): void;
}

/** A tool as `getAllTools()` lists it. */
export interface ToolInfo {
  name: string;
  description: string;
  parameters: TSchema;
}

/** The API an extension's default export receives. */
export interface ExtensionAPI {
  on<K extends ExtensionEventName>(
    event: K,
    handler: ExtensionHandler<ExtensionEventMap[K][0], ExtensionEventMap[K][1]>,
  ): void;
  registerTool<TParams extends TSchema = TSchema, TDetails = unknown>(
    tool: ToolDefinition<TParams, TDetails>,
  ): void;
  registerCommand(name: string, options: CommandOptions): void;
  registerFlag(name: string, options: FlagOptions): void;
  getFlag(name: string): boolean | string | undefined;
  registerProvider(name: string, config: ProviderConfig): void;
  unregisterProvider(name: string): void;
  sendMessage<T = unknown>(message: ExtensionMessage<T>, options?: SendMessageOptions): void;
  sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): void;
  /** A custom entry: extension state, never sent to the model. */
  appendEntry<T = unknown>(customType: string, data?: T): void;
  setSessionName(name: string): void;
  getSessionName(): string | undefined;
  setLabel(entryId: string, label: string | undefined): void;
  exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>;
  getActiveTools(): string[];
  getAllTools(): ToolInfo[];
  setActiveTools(toolNames: string[]): void;
  getCommands(): SlashCommandInfo[];
  setModel(model: Model): Promise<boolean>;
  getThinkingLevel(): ThinkingLevel;
  setThinkingLevel(level: ThinkingLevel): void;
  /** This thread's bus; other threads never see it. */
  events: EventBus;
}

/** The default export of an extension module. */
export type ExtensionFactory = (knightcode: ExtensionAPI) => void | Promise<void>;
