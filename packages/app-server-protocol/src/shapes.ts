/** The shared shapes of the protocol: threads, turns, items, usage, models, warnings. */
import Type, { type Static } from "typebox";
import { PATH_PATTERN } from "./path-pattern.ts";

/** A non-empty file system path param (see `PATH_PATTERN`). */
export const PathString = Type.String({ minLength: 1, pattern: PATH_PATTERN });

/** An immutable server-owned value too large to send inline; read it with `payload/read`. */
export const PayloadRef = Type.Object({
  type: Type.Literal("payloadRef"),
  id: Type.String({ minLength: 1, maxLength: 128 }),
  /** Size of the referenced value in UTF-8 bytes. */
  byteLength: Type.Integer({ minimum: 0 }),
});
export type PayloadRef = Static<typeof PayloadRef>;

export const ThinkingLevel = Type.Union([
  Type.Literal("off"),
  Type.Literal("minimal"),
  Type.Literal("low"),
  Type.Literal("medium"),
  Type.Literal("high"),
  Type.Literal("xhigh"),
]);
export type ThinkingLevel = Static<typeof ThinkingLevel>;

export const ApprovalMode = Type.Union([
  Type.Literal("ask"),
  Type.Literal("autoEdit"),
  Type.Literal("fullAccess"),
]);
export type ApprovalMode = Static<typeof ApprovalMode>;

/** A model reference as clients pick it. */
export const ModelRef = Type.Object({
  provider: Type.String({ minLength: 1 }),
  id: Type.String({ minLength: 1 }),
});
export type ModelRef = Static<typeof ModelRef>;

export const ThreadStatus = Type.Union([
  Type.Object({ type: Type.Literal("notLoaded") }),
  Type.Object({ type: Type.Literal("idle") }),
  Type.Object({
    type: Type.Literal("active"),
    waitingOn: Type.Array(Type.Union([Type.Literal("approval"), Type.Literal("dialog")])),
  }),
  Type.Object({ type: Type.Literal("systemError"), message: Type.String() }),
]);
export type ThreadStatus = Static<typeof ThreadStatus>;

/** A thread row as listings return it. Times are ISO strings. */
/** The server-owned git worktree a thread works in (see docs/worktrees.md). */
export const ThreadWorktree = Type.Object({
  name: Type.String(),
  path: Type.String(),
  branch: Type.String(),
  baseRef: Type.String(),
  baseCommit: Type.String(),
  /** The main checkout's top level. */
  repository: Type.String(),
  /** The branch `worktree/merge` merges into. */
  sourceBranch: Type.Optional(Type.String()),
});
export type ThreadWorktree = Static<typeof ThreadWorktree>;

export const ThreadSummary = Type.Object({
  id: Type.String(),
  cwd: Type.String(),
  /** Session name, else the first user text, bounded. */
  title: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  /** Message entries in the transcript, every branch (`thread/list` rows; absent when not known). */
  messageCount: Type.Optional(Type.Integer({ minimum: 0 })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  /** The parent's header ID. */
  forkedFromId: Type.Optional(Type.String()),
  archived: Type.Boolean(),
  status: ThreadStatus,
  path: Type.Optional(Type.String()),
  worktree: Type.Optional(ThreadWorktree),
});
export type ThreadSummary = Static<typeof ThreadSummary>;

/**
 * Where a loaded thread's tools run. `bubblewrap`: each tool call inside the thread's
 * sandbox; `process`: the whole server runs inside one (`knightcode --sandbox=process`);
 * `unavailable`: a sandbox was asked for and could not start, so every tool call fails
 * (see the `sandbox` warning); `off`: on the host, with credential hygiene only.
 * `network` says whether tool processes can reach the network.
 */
export const ThreadSandbox = Type.Object({
  mode: Type.Union([
    Type.Literal("off"),
    Type.Literal("bubblewrap"),
    Type.Literal("process"),
    Type.Literal("unavailable"),
  ]),
  network: Type.Union([Type.Literal("off"), Type.Literal("on")]),
});
export type ThreadSandbox = Static<typeof ThreadSandbox>;

/**
 * What a loaded thread's agent reads besides the conversation, for a client's first
 * screen: the context files (AGENTS.md, CLAUDE.md, ...) and the extensions that loaded,
 * as paths.
 */
export const ThreadResources = Type.Object({
  contextFiles: Type.Array(Type.String()),
  extensions: Type.Array(Type.String()),
});
export type ThreadResources = Static<typeof ThreadResources>;

/** A thread with its current settings. */
export const Thread = Type.Object({
  ...ThreadSummary.properties,
  model: Type.Optional(ModelRef),
  thinkingLevel: Type.Optional(ThinkingLevel),
  approvalMode: Type.Optional(ApprovalMode),
  /** Present on loaded threads. */
  sandbox: Type.Optional(ThreadSandbox),
});
export type Thread = Static<typeof Thread>;

export const ErrorKind = Type.Union([
  Type.Literal("auth"),
  Type.Literal("rateLimit"),
  Type.Literal("contextOverflow"),
  Type.Literal("network"),
  Type.Literal("provider"),
  Type.Literal("other"),
]);
export type ErrorKind = Static<typeof ErrorKind>;

export const TurnError = Type.Object({ message: Type.String(), kind: ErrorKind });
export type TurnError = Static<typeof TurnError>;

export const FileChange = Type.Object({
  path: Type.String(),
  kind: Type.Union([Type.Literal("add"), Type.Literal("modify"), Type.Literal("delete")]),
  diff: Type.Optional(Type.String()),
});
export type FileChange = Static<typeof FileChange>;

export const ImageMimeType = Type.Union([
  Type.Literal("image/png"),
  Type.Literal("image/jpeg"),
  Type.Literal("image/gif"),
  Type.Literal("image/webp"),
]);

/** An image sent inline as base64. */
export const InlineImage = Type.Object({ mimeType: ImageMimeType, data: Type.String({ minLength: 1 }) });
export type InlineImage = Static<typeof InlineImage>;

/** An image input: inline base64, or an absolute path on the server's filesystem. */
export const ImageInput = Type.Union([InlineImage, Type.Object({ path: PathString })]);
export type ImageInput = Static<typeof ImageInput>;

const ItemTimes = {
  id: Type.String(),
  /** Top-level position in the turn; absent on nested calls. */
  index: Type.Optional(Type.Integer({ minimum: 0 })),
  startedAt: Type.Optional(Type.Number()),
  completedAt: Type.Optional(Type.Number()),
};

export const UserMessageItem = Type.Object({
  ...ItemTimes,
  type: Type.Literal("userMessage"),
  text: Type.String(),
  images: Type.Optional(Type.Array(Type.Union([InlineImage, PayloadRef]))),
  clientMessageId: Type.Optional(Type.String()),
});

export const AgentMessageItem = Type.Object({
  ...ItemTimes,
  type: Type.Literal("agentMessage"),
  text: Type.String(),
});

export const ReasoningItem = Type.Object({
  ...ItemTimes,
  type: Type.Literal("reasoning"),
  text: Type.String(),
});

export const ToolCallStatus = Type.Union([
  Type.Literal("inProgress"),
  Type.Literal("completed"),
  Type.Literal("failed"),
  Type.Literal("declined"),
]);
export type ToolCallStatus = Static<typeof ToolCallStatus>;

/** A tool call; its `id` is the provider's call ID. */
export const ToolCallItem = Type.Object({
  ...ItemTimes,
  type: Type.Literal("toolCall"),
  toolName: Type.String(),
  input: Type.Optional(Type.Unknown()),
  inputRef: Type.Optional(PayloadRef),
  /** The result text the model saw. */
  output: Type.Optional(Type.String()),
  outputRef: Type.Optional(PayloadRef),
  status: ToolCallStatus,
  fileChanges: Type.Optional(Type.Array(FileChange)),
  parentItemId: Type.Optional(Type.String()),
});

export const CompactionItem = Type.Object({
  ...ItemTimes,
  type: Type.Literal("compaction"),
  summary: Type.String(),
  tokensBefore: Type.Integer({ minimum: 0 }),
});

export const ExtensionItem = Type.Object({
  ...ItemTimes,
  type: Type.Literal("extension"),
  customType: Type.String(),
  text: Type.Optional(Type.String()),
  data: Type.Optional(Type.Unknown()),
  /** A custom message's `details` (pi's `CustomMessage.details`), for the client's renderer. */
  details: Type.Optional(Type.Unknown()),
});

export const ThreadItem = Type.Union([
  UserMessageItem,
  AgentMessageItem,
  ReasoningItem,
  ToolCallItem,
  CompactionItem,
  ExtensionItem,
]);
export type ThreadItem = Static<typeof ThreadItem>;
export type UserMessageItem = Static<typeof UserMessageItem>;
export type AgentMessageItem = Static<typeof AgentMessageItem>;
export type ReasoningItem = Static<typeof ReasoningItem>;
export type ToolCallItem = Static<typeof ToolCallItem>;
export type CompactionItem = Static<typeof CompactionItem>;
export type ExtensionItem = Static<typeof ExtensionItem>;

export const TurnStatus = Type.Union([
  Type.Literal("inProgress"),
  Type.Literal("completed"),
  Type.Literal("failed"),
  Type.Literal("interrupted"),
]);
export type TurnStatus = Static<typeof TurnStatus>;

/** A turn. Times are Unix milliseconds; `items` is absent in summaries. */
export const Turn = Type.Object({
  id: Type.String(),
  status: TurnStatus,
  startedAt: Type.Number(),
  completedAt: Type.Optional(Type.Number()),
  error: Type.Optional(TurnError),
  /** Set when a completed turn's last reply stopped at the model's output-token limit. */
  stopReason: Type.Optional(Type.Literal("maxTokens")),
  items: Type.Optional(Type.Array(Type.Union([ThreadItem, PayloadRef]))),
});
export type Turn = Static<typeof Turn>;

/** Cumulative usage of a thread. */
export const TokenUsage = Type.Object({
  input: Type.Number({ minimum: 0 }),
  output: Type.Number({ minimum: 0 }),
  cacheRead: Type.Number({ minimum: 0 }),
  cacheWrite: Type.Number({ minimum: 0 }),
  /** Dollars. */
  cost: Type.Number({ minimum: 0 }),
  contextTokens: Type.Optional(Type.Number({ minimum: 0 })),
  contextWindow: Type.Number({ minimum: 0 }),
});
export type TokenUsage = Static<typeof TokenUsage>;

export const WarningSource = Type.Union([
  Type.Literal("settings"),
  Type.Literal("extension"),
  Type.Literal("trust"),
  Type.Literal("server"),
  Type.Literal("mcp"),
  Type.Literal("sandbox"),
]);

export const Warning = Type.Object({
  message: Type.String(),
  source: WarningSource,
  path: Type.Optional(Type.String()),
  /** One-based. */
  line: Type.Optional(Type.Integer({ minimum: 1 })),
  /** One-based. */
  column: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type Warning = Static<typeof Warning>;

/**
 * A command-line flag an extension of the thread registered (`pi.registerFlag`), with
 * the value `getFlag` gives it: the one passed on the server's command line, else the
 * declared default (absent when neither).
 */
export const ExtensionFlag = Type.Object({
  /** Without the leading `--`. */
  name: Type.String({ minLength: 1 }),
  type: Type.Union([Type.Literal("boolean"), Type.Literal("string")]),
  description: Type.Optional(Type.String()),
  /** The extension that registered it. */
  path: Type.String(),
  value: Type.Optional(Type.Union([Type.Boolean(), Type.String()])),
});
export type ExtensionFlag = Static<typeof ExtensionFlag>;

/** A model as `model/list` reports it. */
export const ProtocolModel = Type.Object({
  provider: Type.String(),
  id: Type.String(),
  name: Type.String(),
  api: Type.String(),
  reasoning: Type.Boolean(),
  input: Type.Array(Type.Union([Type.Literal("text"), Type.Literal("image")])),
  contextWindow: Type.Integer({ minimum: 0 }),
  maxTokens: Type.Integer({ minimum: 0 }),
  /** Accepted picker values; `["off"]` for non-reasoning models. */
  thinkingLevels: Type.Array(ThinkingLevel, { minItems: 1 }),
  /** Whether credentials for its provider are available. */
  available: Type.Boolean(),
});
export type ProtocolModel = Static<typeof ProtocolModel>;

export const ApprovalDecision = Type.Union([
  Type.Literal("accept"),
  Type.Literal("acceptForSession"),
  Type.Literal("acceptPrefixForSession"),
  Type.Literal("decline"),
  Type.Literal("cancel"),
]);
export type ApprovalDecision = Static<typeof ApprovalDecision>;

/**
 * A notification's place in its thread's stream: the top-level `seq` of every
 * notification about a loaded thread counts up from 1 within one stream (one load of the
 * thread in one server process), across every connection.
 */
export const StreamSeq = Type.Integer({ minimum: 0 });
export type StreamSeq = Static<typeof StreamSeq>;

/** Where a thread's stream stood when a response was sent: its ID and the last `seq` sent. */
export const StreamPosition = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  seq: StreamSeq,
});
export type StreamPosition = Static<typeof StreamPosition>;

/** Unsent steers and queued inputs of a thread. */
export const QueueState = Type.Object({
  steering: Type.Array(Type.String()),
  followUp: Type.Array(Type.Object({ id: Type.String(), text: Type.String() })),
});
export type QueueState = Static<typeof QueueState>;

/** One argument a command declares (MCP prompts do; templates, skills and extensions do not). */
export const CommandArgument = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  required: Type.Boolean(),
});
export type CommandArgument = Static<typeof CommandArgument>;

/** Where a listed command comes from: the server's own, an extension, a prompt template, a skill, an MCP prompt. */
export const CommandSource = Type.Union([
  Type.Literal("builtin"),
  Type.Literal("extension"),
  Type.Literal("template"),
  Type.Literal("skill"),
  Type.Literal("mcp"),
]);
export type CommandSource = Static<typeof CommandSource>;

export const Command = Type.Object({
  name: Type.String(),
  description: Type.String(),
  /** Where it comes from (absent from servers that do not say). */
  source: Type.Optional(CommandSource),
  /** The arguments, in order, when the command declares them (an MCP prompt's). */
  arguments: Type.Optional(Type.Array(CommandArgument)),
});
export type Command = Static<typeof Command>;

export const FileMatch = Type.Object({
  path: Type.String(),
  score: Type.Number(),
  /** Character indices of `path` that matched the query. */
  indices: Type.Array(Type.Integer({ minimum: 0 })),
});
export type FileMatch = Static<typeof FileMatch>;

export const AccountStatus = Type.Object({
  provider: Type.String(),
  authenticated: Type.Boolean(),
  source: Type.Optional(
    Type.Union([Type.Literal("environment"), Type.Literal("authFile"), Type.Literal("modelsJson")]),
  ),
  /** The environment variables the server reads this provider's key from (built-in providers). */
  envVars: Type.Optional(Type.Array(Type.String())),
});
export type AccountStatus = Static<typeof AccountStatus>;

/** What an MCP server config shares, whatever its transport. */
const McpServerCommon = {
  /** `false` keeps the server configured but never started. Default true. */
  enabled: Type.Optional(Type.Boolean()),
  /** Allow-list of the server's tool names (as the server names them); absent means all. */
  tools: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 1024 })),
  /** How long connecting and `initialize` may take. Default 30,000. */
  startTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
};

const StringMap = Type.Record(Type.String(), Type.String(), { maxProperties: 256 });

/** An MCP server KnightCode starts as a child process and speaks to over stdio. */
export const McpStdioServerConfig = Type.Object(
  {
    command: Type.String({ minLength: 1, maxLength: 4096 }),
    args: Type.Optional(Type.Array(Type.String({ maxLength: 65_536 }), { maxItems: 1024 })),
    /** The only variables the server gets besides PATH, HOME and LANG. */
    env: Type.Optional(StringMap),
    /** Relative paths resolve against the thread's cwd. Default: the thread's cwd. */
    cwd: Type.Optional(PathString),
    ...McpServerCommon,
  },
  { additionalProperties: false },
);
export type McpStdioServerConfig = Static<typeof McpStdioServerConfig>;

/** An MCP server reached over the streamable-HTTP transport. */
export const McpHttpServerConfig = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 8192 }),
    headers: Type.Optional(StringMap),
    ...McpServerCommon,
  },
  { additionalProperties: false },
);
export type McpHttpServerConfig = Static<typeof McpHttpServerConfig>;

export const McpServerConfig = Type.Union([McpStdioServerConfig, McpHttpServerConfig]);
export type McpServerConfig = Static<typeof McpServerConfig>;

/** MCP servers keyed by name, as in the `mcpServers` setting. */
export const McpServers = Type.Record(
  Type.String({ pattern: "^[^\\u0000-\\u001f]{1,128}$" }),
  McpServerConfig,
  {
    additionalProperties: false,
    maxProperties: 64,
  },
);
export type McpServers = Static<typeof McpServers>;

/** One tool of an MCP server, under the name the model calls it by. */
export const McpToolInfo = Type.Object({
  /** The agent tool name, `mcp__<server>__<tool>`. */
  name: Type.String(),
  /** The tool's name on its server. */
  serverToolName: Type.String(),
  description: Type.Optional(Type.String()),
});
export type McpToolInfo = Static<typeof McpToolInfo>;

/** A resource an MCP server lists (`resources/list`). */
export const McpResourceInfo = Type.Object({
  uri: Type.String(),
  name: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  mimeType: Type.Optional(Type.String()),
});
export type McpResourceInfo = Static<typeof McpResourceInfo>;

/** A resource template an MCP server lists (`resources/templates/list`): an RFC 6570 URI template. */
export const McpResourceTemplateInfo = Type.Object({
  uriTemplate: Type.String(),
  name: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  mimeType: Type.Optional(Type.String()),
});
export type McpResourceTemplateInfo = Static<typeof McpResourceTemplateInfo>;

/** One resource of one of the thread's MCP servers, named for reading or attaching to a turn. */
export const McpResourceRef = Type.Object({
  server: Type.String({ minLength: 1, maxLength: 256 }),
  uri: Type.String({ minLength: 1, maxLength: 8192 }),
});
export type McpResourceRef = Static<typeof McpResourceRef>;

export const McpServerState = Type.Union([
  Type.Literal("disabled"),
  Type.Literal("notStarted"),
  Type.Literal("starting"),
  Type.Literal("ready"),
  Type.Literal("failed"),
  Type.Literal("stopped"),
]);
export type McpServerState = Static<typeof McpServerState>;

/** A configured MCP server as `mcpServer/list` reports it. */
export const McpServerStatus = Type.Object({
  name: Type.String(),
  transport: Type.Union([Type.Literal("stdio"), Type.Literal("http")]),
  /** Where the config came from: a settings scope, or the client's `mcpServers` for this thread. */
  origin: Type.Union([Type.Literal("global"), Type.Literal("project"), Type.Literal("thread")]),
  state: McpServerState,
  /** Why the server failed or stopped. */
  error: Type.Optional(Type.String()),
  tools: Type.Array(McpToolInfo),
  /** Present when the (ready) server offers resources. */
  resources: Type.Optional(Type.Array(McpResourceInfo)),
  resourceTemplates: Type.Optional(Type.Array(McpResourceTemplateInfo)),
});
export type McpServerStatus = Static<typeof McpServerStatus>;
