/**
 * The agent package's contracts: tools, hooks, events and options. The thread manager
 * builds on these names; extend them by adding, never by renaming.
 */
import type {
  AssistantMessage,
  AssistantMessageEvent,
  ImageContent,
  Message,
  Model,
  StreamFunction,
  StreamOptions,
  TextContent,
  ToolCall,
  ToolResultMessage,
} from "@knightcode/ai";
import type { Static, TSchema } from "typebox";

/** Anything with a role can live in the agent's context; `convertToLlm` decides what the model sees. */
export interface RoleMessage {
  role: string;
}

/** A file touched by a completed tool call, as `item/completed` reports it. */
export interface FileChange {
  path: string;
  kind: "add" | "modify" | "delete";
  /** Unified diff; present when non-empty. */
  diff?: string;
}

/**
 * A file change as it would happen: the absolute path, whether the file is new, and the
 * unified diff; `error` says why the call would fail as asked (an edit's text not found).
 */
export interface FileChangePreview {
  path: string;
  kind: "add" | "modify";
  /** Unified diff; absent when nothing would change or the old file is not text. */
  diff?: string;
  error?: string;
}

/** The source of a tool that is not built in. */
export type ToolOrigin = { kind: "extension"; path: string } | { kind: "mcp"; server: string; tool: string };

/** What a tool returns (and streams as partial results). */
export interface AgentToolResult<TDetails = unknown> {
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  /** A tool may report failure without throwing; a thrown error also yields `isError: true`. */
  isError?: boolean;
  /**
   * Ends the run after this tool batch, with no further model request, when every result
   * of the batch sets it (a tool that delivers the final answer, e.g. structured output).
   */
  terminate?: boolean;
}

/** What a running tool gets besides its arguments. */
export interface ToolExecutionContext {
  toolCallId: string;
  /** Aborts with the run: stop work and reject promptly. */
  signal: AbortSignal;
  /** Streams a partial result (bash output so far); it becomes `tool_execution_update`. */
  onUpdate(partial: AgentToolResult): void;
}

/** A tool the model can call. `parameters` is a JSON Schema (a TypeBox one, or a plain object); arguments are validated against it. */
export interface AgentTool<TParams extends TSchema = TSchema, TDetails = unknown> {
  name: string;
  /** Short human label for UIs. */
  label?: string;
  description: string;
  parameters: TParams;
  /**
   * Absolute paths this call will modify. Calls sharing a path run one after another in call
   * order; everything else runs in parallel.
   */
  mutatedPaths?(args: Static<TParams>): string[];
  /**
   * What the call would change, computed without changing anything, so an approval can
   * show it before the user answers. File tools have one; others leave it out.
   */
  preview?(args: Static<TParams>): Promise<FileChangePreview>;
  /** Where the tool comes from, when not built in: an extension's path or an MCP server. */
  origin?: ToolOrigin;
  execute(args: Static<TParams>, ctx: ToolExecutionContext): Promise<AgentToolResult<TDetails>>;
}

/** A tool with its parameter type erased, as lists of mixed tools hold it. */
// biome-ignore lint/suspicious/noExplicitAny: erasing the parameter type is the point of this alias.
export type AnyAgentTool = AgentTool<any, any>;

/** One tool call as the hooks see it: the model's call, the validated arguments and the tool. */
export interface ToolCallInfo {
  toolCall: ToolCall;
  /** Arguments after validation and coercion. */
  args: Record<string, unknown>;
  tool: AnyAgentTool;
}

/** Context handed to `beforeToolCall`. */
export interface BeforeToolCallContext {
  signal: AbortSignal;
  /** The assistant message that made the call. */
  assistantMessage: AssistantMessage;
}

/** Answer of `beforeToolCall`: run it, or block it with a reason the model will read. */
export type ToolCallDecision = { action: "allow" } | { action: "block"; reason: string };

/** Answer of `onMessageEnd`: keep the message, or drop it from the context (UIs withdraw its item). */
export type MessageEndDecision = { action: "keep" } | { action: "drop" };

/** Retry policy for transient model failures. */
export interface RetryOptions {
  enabled: boolean;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff delay; doubles per retry. */
  baseDelayMs: number;
  /** Cap of the backoff; a server asking (retry-after) for longer than this fails the request instead. */
  maxRetryDelayMs: number;
}

/** How queued messages leave the queue: all at once, or one per model call. */
export type QueueMode = "all" | "one-at-a-time";

/** Everything the loop needs to run. */
export interface AgentOptions<M extends RoleMessage = Message> {
  model: Model;
  /** The provider entry point (`streamModel` from `@knightcode/ai`, or a test double). */
  streamFn: StreamFunction;
  systemPrompt?: string;
  tools?: AnyAgentTool[];
  /** Initial context. */
  messages?: (M | Message)[];
  /** Per-request options; `signal` and `apiKey` are filled in by the loop. */
  streamOptions?: Omit<StreamOptions, "signal" | "apiKey">;
  /** Resolved before every request so rotated keys take effect. */
  getApiKey?: (model: Model) => string | undefined | Promise<string | undefined>;
  /** Turns the session's extended messages into provider messages. Default keeps user/assistant/toolResult. */
  convertToLlm?: (messages: readonly (M | Message)[]) => Message[] | Promise<Message[]>;
  /** Runs before every model request; returned messages replace the context (compaction plugs in here). */
  beforeModelCall?: (ctx: {
    messages: readonly (M | Message)[];
    signal: AbortSignal;
  }) => undefined | { messages: (M | Message)[] } | Promise<undefined | { messages: (M | Message)[] }>;
  /** May block a call (approvals, extensions). Called in call order, after validation. */
  beforeToolCall?: (
    call: ToolCallInfo,
    ctx: BeforeToolCallContext,
  ) => ToolCallDecision | Promise<ToolCallDecision>;
  /** May replace a result before the model sees it. */
  afterToolCall?: (
    call: ToolCallInfo,
    result: AgentToolResult,
  ) => AgentToolResult | undefined | Promise<AgentToolResult | undefined>;
  /** Called when any message is final; may drop it. A dropped assistant message's tool calls never run. */
  onMessageEnd?: (message: M | Message) => MessageEndDecision | Promise<MessageEndDecision>;
  retry?: Partial<RetryOptions>;
  /**
   * Backpressure from whoever consumes the events: asked after each streamed event; while
   * it returns a promise the loop reads no further event, and so (through the provider
   * stream's own flow control) no further bytes of the model's response.
   */
  outputReady?: () => Promise<void> | undefined;
  /** Injectable wait for retry backoff; must reject when the signal aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  /**
   * After an abort, how long a running tool may take to stop and report its own result
   * before the loop gives it an "aborted" result and moves on (default 2000 ms).
   */
  toolAbortGraceMs?: number;
}

/** Events for every step of a run. Listeners are called synchronously, in order. */
export type AgentEvent<M extends RoleMessage = Message> =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: (M | Message)[]; aborted: boolean }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: M | Message }
  | { type: "message_update"; message: AssistantMessage; event: AssistantMessageEvent }
  | { type: "message_end"; message: M | Message; dropped: boolean }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: Record<string, unknown> }
  | {
      type: "tool_execution_update";
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
      partialResult: AgentToolResult;
    }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
      result: AgentToolResult;
      isError: boolean;
      /** Set when `beforeToolCall` blocked the call. */
      blockedReason?: string;
    }
  | {
      type: "retry_scheduled";
      /** 1-based number of the retry about to happen. */
      attempt: number;
      maxRetries: number;
      delayMs: number;
      error: AssistantMessage;
    }
  | { type: "queue_update"; steering: M[]; followUp: M[] };

/** A listener of agent events. */
export type AgentListener<M extends RoleMessage = Message> = (event: AgentEvent<M>) => void;
