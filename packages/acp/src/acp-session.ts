/**
 * One ACP session, which is one KnightCode thread: translates the thread's live
 * notifications into session updates, runs prompts as turns and asks the editor for the
 * approvals the server requests.
 */
import {
  type AgentContext,
  type AvailableCommand,
  type ContentBlock,
  type PromptResponse,
  RequestError,
  type RequestPermissionResponse,
  type SessionUpdate,
  type ToolCallContent,
} from "@agentclientprotocol/sdk";
import {
  type ApprovalMode,
  type AppServerClient,
  type Command,
  type ItemToolCallRequestApprovalParams,
  type ItemToolCallRequestApprovalResult,
  isPayloadRef,
  type PayloadRef,
  type ServerNotificationParams,
  type ThreadItem,
  type TokenUsage,
  type ToolCallItem,
  type Turn,
} from "@knightcode/app-server-protocol";
import { currentText } from "./current-text.ts";
import { toRequestError, turnFailed } from "./errors.ts";
import { replayedToolCall } from "./history-replay.ts";
import { DEFAULT_MODE, runsWithoutAsking } from "./modes.ts";
import { allows, decisionFor, permissionOptions } from "./permissions.ts";
import { previewContent } from "./preview-content.ts";
import { promptToTurnInput, UnsupportedContentError } from "./prompt-content.ts";
import { outputContent, toolDiffs, toolKind, toolLocations, toolPath, toolTitle } from "./tool-calls.ts";
import { UpdateQueue } from "./update-queue.ts";

/** Commands an editor offers elsewhere (its own new-session and fork actions). */
const HIDDEN_COMMANDS = new Set(["new", "fork"]);
const COMMAND_HINTS: Record<string, string> = {
  compact: "optional instructions for the summary",
  name: "the new name",
};

/** The input hint of a listed command: a built-in's, or an MCP prompt's declared arguments (`<city> [state]`). */
function commandHint(command: Command): string | undefined {
  const fixed = COMMAND_HINTS[command.name];
  if (fixed !== undefined || !command.arguments?.length) return fixed;
  return command.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ");
}

interface RunningPrompt {
  requestId: string;
  turnId?: string;
  cancelled: boolean;
  done: ReturnType<typeof Promise.withResolvers<Turn>>;
}

interface OpenToolCall {
  toolName: string;
  input: unknown;
  diffs: ToolCallContent[];
}

/** What a session needs from the process around it. */
export interface SessionContext {
  server: AppServerClient;
  editor: AgentContext;
  log(message: string): void;
}

let promptCounter = 0;

/** A live ACP session over one thread. */
export class AcpSession {
  /** The thread the session drives now (a `/new` replaces it). */
  threadId: string;
  mode: ApprovalMode;
  private readonly updates: UpdateQueue;
  private running: RunningPrompt | undefined;
  private readonly toolCalls = new Map<string, OpenToolCall>();
  private readonly streamed = new Map<string, number>();
  private readonly grantedTools = new Set<string>();
  private lastCommands = "";

  constructor(
    /** The ACP session ID: the thread's ID when the session began. */
    readonly id: string,
    readonly cwd: string,
    mode: ApprovalMode | undefined,
    private readonly ctx: SessionContext,
  ) {
    this.threadId = id;
    this.mode = mode ?? DEFAULT_MODE;
    this.updates = new UpdateQueue(
      (update) => ctx.editor.notify("session/update", { sessionId: id, update }),
      (error) => ctx.log(`session ${id}: an update could not be sent: ${String(error)}`),
    );
  }

  /** Queues updates for the editor. */
  send(updates: SessionUpdate | SessionUpdate[]): void {
    this.updates.push(updates);
  }

  /** Resolves once every queued update is written. */
  flush(): Promise<void> {
    return this.updates.flush();
  }

  /** `turn/started`: the turn of this session's running prompt (matched by its request ID). */
  turnStarted(params: ServerNotificationParams<"turn/started">): void {
    const running = this.running;
    if (running === undefined || params.requestId !== running.requestId) return;
    const turnId = params.turn.id;
    running.turnId = turnId;
    if (running.cancelled) void this.interrupt(turnId);
  }

  /** A text or reasoning delta, passed on as a chunk. */
  delta(
    kind: "agent_message_chunk" | "agent_thought_chunk",
    params: { itemId: string; delta: string },
  ): void {
    this.streamed.set(params.itemId, (this.streamed.get(params.itemId) ?? 0) + params.delta.length);
    this.updates.pushText(kind, params.delta);
  }

  /** `turn/completed`: the running prompt's turn is done. */
  turnCompleted(params: ServerNotificationParams<"turn/completed">): void {
    if (this.running?.turnId === params.turn.id) this.running.done.resolve(params.turn as Turn);
  }

  /** `thread/tokenUsage/updated`. */
  usage(params: ServerNotificationParams<"thread/tokenUsage/updated">): void {
    this.send(usageUpdate(params.usage));
  }

  itemStarted(raw: ThreadItem | PayloadRef): void {
    if (isPayloadRef(raw)) {
      this.updates.push(async () => {
        const item = await this.ctx.server.resolveItem(raw);
        return item.type === "toolCall" ? this.toolCallStarted(item, undefined) : undefined;
      });
      return;
    }
    if (raw.type !== "toolCall") return;
    // read now, before the tool can run: the queue may be behind the server
    const before = raw.toolName === "write" ? currentText(toolPath(this.cwd, raw.input)) : undefined;
    const item = raw;
    this.updates.push(async () => this.toolCallStarted(await this.withInput(item), before));
  }

  private toolCallStarted(item: ToolCallItem, before: string | null | undefined): SessionUpdate[] {
    const diffs = toolDiffs(item.toolName, this.cwd, item.input, before);
    this.toolCalls.set(item.id, { toolName: item.toolName, input: item.input, diffs });
    const started: SessionUpdate[] = [
      {
        sessionUpdate: "tool_call",
        toolCallId: item.id,
        title: toolTitle(item.toolName, item.input),
        kind: toolKind(item.toolName),
        status: "pending",
        locations: toolLocations(item.toolName, this.cwd, item.input),
        rawInput: item.input,
        content: diffs,
      },
    ];
    if (runsWithoutAsking(this.mode, item.toolName) || this.grantedTools.has(item.toolName)) {
      started.push({ sessionUpdate: "tool_call_update", toolCallId: item.id, status: "in_progress" });
    }
    return started;
  }

  itemCompleted(raw: ThreadItem | PayloadRef): void {
    if (!isPayloadRef(raw) && raw.type === "agentMessage") {
      // `item/completed` decides the text; send what the deltas did not carry
      const sent = this.streamed.get(raw.id) ?? 0;
      this.streamed.delete(raw.id);
      if (raw.text.length > sent) {
        this.send({
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: raw.text.slice(sent) },
        });
      }
      return;
    }
    if (!isPayloadRef(raw) && raw.type === "reasoning") {
      this.streamed.delete(raw.id);
      return;
    }
    if (!isPayloadRef(raw) && raw.type === "compaction") {
      this.send({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: `Conversation compacted (${raw.tokensBefore} tokens before).` },
      });
      return;
    }
    if (!isPayloadRef(raw) && raw.type !== "toolCall") return;
    this.updates.push(async () => {
      const resolved = await this.ctx.server.resolveItem(raw);
      if (resolved.type !== "toolCall") return undefined;
      const open = this.toolCalls.get(resolved.id);
      this.toolCalls.delete(resolved.id);
      if (open === undefined) return replayedToolCall(resolved, this.cwd);
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: resolved.id,
        status: resolved.status === "completed" ? "completed" : "failed",
        content: [...open.diffs, ...outputContent(resolved)],
        ...(resolved.output === undefined ? {} : { rawOutput: resolved.output }),
      };
    });
  }

  private async withInput(item: ToolCallItem): Promise<ToolCallItem> {
    return item.inputRef === undefined ? item : (this.ctx.server.resolveItem(item) as Promise<ToolCallItem>);
  }

  /** Runs one prompt as a turn; answers once every update of the turn is out. */
  async prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse> {
    if (this.running !== undefined) {
      throw RequestError.invalidRequest(undefined, `session ${this.id} is already running a prompt`);
    }
    let input: ReturnType<typeof promptToTurnInput>;
    try {
      input = promptToTurnInput(blocks);
    } catch (error) {
      if (error instanceof UnsupportedContentError)
        throw RequestError.invalidParams(undefined, error.message);
      throw error;
    }
    promptCounter += 1;
    const running: RunningPrompt = {
      requestId: `acp-${process.pid}-${promptCounter}`,
      cancelled: false,
      done: Promise.withResolvers<Turn>(),
    };
    this.running = running;
    try {
      const started = await this.ctx.server
        .request("turn/start", {
          threadId: this.threadId,
          text: input.text,
          requestId: running.requestId,
          ...(input.images.length > 0 ? { images: input.images } : {}),
        })
        .catch((error: unknown) => {
          throw toRequestError(error, this.id);
        });
      if (started.status !== "started") {
        await this.flush();
        return { stopReason: started.status === "cancelled" || running.cancelled ? "cancelled" : "end_turn" };
      }
      const turn = await running.done.promise;
      await this.flush();
      if (running.cancelled || turn.status === "interrupted") return { stopReason: "cancelled" };
      if (turn.status === "failed")
        throw turnFailed(turn.error ?? { kind: "other", message: "the turn failed" });
      return { stopReason: turn.stopReason === "maxTokens" ? "max_tokens" : "end_turn" };
    } finally {
      this.running = undefined;
      void this.refreshCommands();
    }
  }

  /** `session/cancel`: interrupts the running turn; its prompt answers `cancelled`. */
  async cancel(): Promise<void> {
    const running = this.running;
    if (running === undefined) return;
    running.cancelled = true;
    await this.interrupt(running.turnId);
  }

  private async interrupt(turnId: string | undefined): Promise<void> {
    try {
      await this.ctx.server.request("turn/interrupt", {
        threadId: this.threadId,
        ...(turnId === undefined ? {} : { turnId }),
      });
    } catch (error) {
      // a turn that already ended cannot be interrupted; its prompt answers anyway
      this.ctx.log(`session ${this.id}: interrupt: ${String(error)}`);
    }
  }

  /** Asks the editor about one approval; withdrawn when the server cancels it. */
  async requestPermission(
    params: ItemToolCallRequestApprovalParams,
    signal: AbortSignal,
  ): Promise<ItemToolCallRequestApprovalResult> {
    await this.flush();
    if (signal.aborted || this.running?.cancelled) return { decision: "cancel" };
    const input =
      params.inputRef === undefined ? params.input : await this.ctx.server.readPayloadJson(params.inputRef);
    const offer = {
      toolName: params.toolName,
      decisions: params.decisions,
      ...(params.prefix === undefined ? {} : { prefix: params.prefix }),
    };
    const open = this.toolCalls.get(params.itemId);
    const content = await this.permissionContent(params, input, open);
    let outcome: RequestPermissionResponse;
    try {
      outcome = await this.ctx.editor.request(
        "session/request_permission",
        {
          sessionId: this.id,
          toolCall: {
            toolCallId: params.itemId,
            title: toolTitle(params.toolName, input),
            kind: toolKind(params.toolName),
            status: "pending",
            locations: toolLocations(params.toolName, this.cwd, input),
            rawInput: input,
            ...(content === undefined ? {} : { content }),
          },
          options: permissionOptions(offer),
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
    } catch (error) {
      if (signal.aborted) return { decision: "cancel" };
      this.ctx.log(`session ${this.id}: permission request failed, declining: ${String(error)}`);
      return { decision: "decline" };
    }
    if (signal.aborted || this.running?.cancelled) return { decision: "cancel" };
    const decision = decisionFor(outcome.outcome, offer);
    if (allows(decision)) {
      if (decision === "acceptForSession") this.grantedTools.add(params.toolName);
      this.send({ sessionUpdate: "tool_call_update", toolCallId: params.itemId, status: "in_progress" });
    }
    return { decision };
  }

  /**
   * What the permission request shows: the server's preview when it sent one (a file
   * change's diffs then also stand for the call's diffs in later updates), else the diffs
   * read when the call started.
   */
  private async permissionContent(
    params: ItemToolCallRequestApprovalParams,
    input: unknown,
    open: OpenToolCall | undefined,
  ): Promise<ToolCallContent[] | undefined> {
    const preview = params.preview;
    if (preview === undefined) return open?.diffs;
    const diff =
      preview.type === "fileChange" && preview.diffRef !== undefined
        ? new TextDecoder().decode(await this.ctx.server.readPayload(preview.diffRef))
        : preview.type === "fileChange"
          ? preview.diff
          : undefined;
    const content = await previewContent(preview, input, diff);
    if (preview.type === "fileChange" && preview.error === undefined && open !== undefined)
      open.diffs = content;
    return content;
  }

  /** Sends `available_commands_update` when the thread's command list differs from the last one sent. */
  async refreshCommands(): Promise<void> {
    let commands: AvailableCommand[];
    try {
      const listed = await this.ctx.server.request("command/list", { threadId: this.threadId });
      commands = listed.commands
        .filter((command) => !HIDDEN_COMMANDS.has(command.name))
        .map((command) => ({
          name: command.name,
          description: command.description,
          ...(commandHint(command) === undefined ? {} : { input: { hint: commandHint(command)! } }),
        }));
    } catch (error) {
      this.ctx.log(`session ${this.id}: command/list: ${String(error)}`);
      return;
    }
    const key = JSON.stringify(commands);
    if (key === this.lastCommands) return;
    this.lastCommands = key;
    this.send({ sessionUpdate: "available_commands_update", availableCommands: commands });
  }

  /** Ends the session's part in the thread: interrupts its prompt and unsubscribes. */
  async close(): Promise<void> {
    await this.cancel();
    try {
      await this.ctx.server.request("thread/unsubscribe", { threadId: this.threadId });
    } catch (error) {
      this.ctx.log(`session ${this.id}: unsubscribe: ${String(error)}`);
    }
  }
}

/** Token usage as ACP's context-window gauge; cost is in dollars. */
export function usageUpdate(usage: TokenUsage): SessionUpdate {
  return {
    sessionUpdate: "usage_update",
    used: Math.round(usage.contextTokens ?? usage.input + usage.output),
    size: Math.round(usage.contextWindow),
    cost: { amount: usage.cost, currency: "USD" },
  };
}
