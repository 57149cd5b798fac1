/**
 * The thread manager's hook points mapped onto extension events, with pi's chaining
 * rules: input transforms chain and the first `handled` wins; `before_agent_start`
 * chains the system prompt; `context` and `message_end` chain their messages; the first
 * `tool_call` block wins; `tool_result` patches chain; the first compaction answer wins;
 * the first `{cancel: true}` of `session_before_switch` / `session_before_fork` wins.
 * Observers (`message_start`, `message_update`, `tool_execution_*`, `after_provider_response`,
 * `session_tree`) answer nothing.
 * A hook only exists when some extension listens, so a thread without listeners pays
 * nothing at that point.
 */
import type { Message } from "@knightcode/ai";
import type { SessionBeforeCompactResult, SessionBeforeTreeResult } from "@knightcode/compaction";
import type { AgentMessage } from "@knightcode/session-store";
import type { ExtensionEventName, InputSource, UserBashEventResult } from "./api-types.ts";
import type { ExtensionRunner } from "./extension-runner.ts";
import type {
  BeforeAgentStartHookResult,
  ExtensionHooks,
  InputHookResult,
  SessionMoveCancel,
  ToolResultPatch,
} from "./host-contract.ts";

function when<K extends ExtensionEventName, H>(runner: ExtensionRunner, event: K, hook: H): H | undefined {
  return runner.has(event) ? hook : undefined;
}

/** Builds the hooks object; it is rebuilt after registrations change (see `refresh`). */
export function threadHooks(runner: ExtensionRunner, inputSource: InputSource): ExtensionHooks {
  const hooks: ExtensionHooks = {};
  hooks.input = when(runner, "input", async (event): Promise<InputHookResult> => {
    let text = event.text;
    let images = event.images;
    let handled = false;
    let changed = false;
    await runner.emit(
      "input",
      // later handlers see what earlier transforms made of the input
      {
        type: "input",
        get text() {
          return text;
        },
        get images() {
          return images;
        },
        source: inputSource,
      },
      (result) => {
        if (result.action === "handled") {
          handled = true;
          return "stop";
        }
        if (result.action === "transform" && typeof result.text === "string") {
          text = result.text;
          if (result.images) images = result.images;
          changed = true;
        }
        return undefined;
      },
    );
    if (handled) return { action: "handled" };
    return changed ? { action: "continue", text, images } : { action: "continue" };
  });
  hooks.beforeAgentStart = when(runner, "before_agent_start", async (event) => {
    let systemPrompt = event.systemPrompt ?? "";
    const answer: BeforeAgentStartHookResult = {};
    runner.pendingSystemPrompt = systemPrompt;
    try {
      await runner.emit(
        "before_agent_start",
        {
          type: "before_agent_start",
          prompt: event.prompt ?? "",
          ...(event.images && event.images.length > 0 ? { images: event.images } : {}),
          get systemPrompt() {
            return systemPrompt;
          },
          systemPromptOptions: { cwd: runner.options.cwd, selectedTools: event.selectedTools ?? [] },
        },
        (result) => {
          if (typeof result.systemPrompt === "string") {
            systemPrompt = result.systemPrompt;
            runner.pendingSystemPrompt = systemPrompt;
            answer.systemPrompt = systemPrompt;
          }
          if (result.message && answer.message === undefined) {
            answer.message = {
              customType: result.message.customType,
              content: result.message.content,
              display: result.message.display ?? true,
              ...(result.message.details !== undefined ? { details: result.message.details } : {}),
            };
          }
          return undefined;
        },
      );
    } finally {
      runner.pendingSystemPrompt = undefined;
    }
    return answer;
  });
  hooks.agentStart = when(runner, "agent_start", async () => {
    await runner.emit("agent_start", { type: "agent_start" });
  });
  hooks.turnStart = when(runner, "turn_start", async (event) => {
    await runner.emit("turn_start", {
      type: "turn_start",
      turnIndex: event.turnIndex ?? 0,
      timestamp: Date.now(),
    });
  });
  hooks.turnEnd = when(runner, "turn_end", async (event) => {
    await runner.emit("turn_end", {
      type: "turn_end",
      turnIndex: event.turnIndex ?? 0,
      message: event.message,
      toolResults: event.toolResults,
    });
  });
  hooks.agentEnd = when(runner, "agent_end", async (event) => {
    await runner.emit("agent_end", {
      type: "agent_end",
      messages: event.messages ?? [],
      aborted: event.aborted,
    });
  });
  hooks.agentBeforeSettle = when(runner, "agent_before_settle", async () => {
    await runner.emit("agent_before_settle", { type: "agent_before_settle" });
  });
  // Observers: every handler runs at once; a promise comes back only when one answered with one.
  hooks.messageStart = when(runner, "message_start", (event) =>
    runner.notify("message_start", { type: "message_start", message: event.message }),
  );
  hooks.messageUpdate = when(runner, "message_update", (event) =>
    runner.notify("message_update", {
      type: "message_update",
      message: event.message,
      assistantMessageEvent: event.assistantMessageEvent,
    }),
  );
  hooks.toolExecutionStart = when(runner, "tool_execution_start", (event) =>
    runner.notify("tool_execution_start", { type: "tool_execution_start", ...event }),
  );
  hooks.toolExecutionUpdate = when(runner, "tool_execution_update", (event) =>
    runner.notify("tool_execution_update", { type: "tool_execution_update", ...event }),
  );
  hooks.toolExecutionEnd = when(runner, "tool_execution_end", (event) =>
    runner.notify("tool_execution_end", { type: "tool_execution_end", ...event }),
  );
  hooks.afterProviderResponse = when(runner, "after_provider_response", async (event) => {
    await runner.emit("after_provider_response", {
      type: "after_provider_response",
      status: event.status,
      headers: event.headers,
    });
  });
  hooks.context = when(runner, "context", async (event) => {
    let messages = structuredClone(event.messages) as AgentMessage[];
    let changed = false;
    await runner.emit("context", { type: "context", messages }, (result) => {
      if (Array.isArray(result.messages)) {
        messages = result.messages;
        changed = true;
      }
      return undefined;
    });
    return changed ? { messages: messages as Message[] } : undefined;
  });
  hooks.beforeProviderRequest = when(runner, "before_provider_request", async (event) => {
    let payload = event.payload;
    let replaced = false;
    await runner.emit(
      "before_provider_request",
      {
        type: "before_provider_request",
        get payload() {
          return payload;
        },
      },
      (result) => {
        payload = result;
        replaced = true;
        return undefined;
      },
    );
    return replaced ? { payload } : undefined;
  });
  hooks.messageEnd = when(runner, "message_end", async (event) => {
    let message = event.message;
    let dropped = false;
    let replaced = false;
    await runner.emit("message_end", { type: "message_end", message }, (result, path) => {
      if (result.drop === true) {
        dropped = true;
        return "stop";
      }
      if (result.message) {
        if (result.message.role !== message.role) {
          runner.warnFor(
            path,
            `message_end replacement must keep the role "${message.role}"; ignored (${path})`,
          );
          return undefined;
        }
        message = result.message;
        replaced = true;
      }
      return undefined;
    });
    if (dropped) return { action: "drop" };
    return replaced ? { action: "keep", message } : { action: "keep" };
  });
  hooks.toolCall = when(runner, "tool_call", async (event) => {
    let reason: string | undefined;
    await runner.emit(
      "tool_call",
      { type: "tool_call", toolCallId: event.toolCallId, toolName: event.toolName, input: event.input },
      (result) => {
        if (result.block !== true) return undefined;
        reason =
          typeof result.reason === "string" && result.reason !== ""
            ? result.reason
            : "Blocked by an extension";
        return "stop";
      },
    );
    return reason === undefined ? { action: "allow" } : { action: "block", reason };
  });
  hooks.toolResult = when(runner, "tool_result", async (event) => {
    const current = { content: event.content ?? [], details: event.details, isError: event.isError };
    let patched = false;
    await runner.emit(
      "tool_result",
      {
        type: "tool_result",
        toolCallId: event.toolCallId,
        toolName: event.toolName,
        input: event.input ?? {},
        get content() {
          return current.content;
        },
        get details() {
          return current.details;
        },
        get isError() {
          return current.isError;
        },
      },
      (result) => {
        if (Array.isArray(result.content)) current.content = result.content;
        if ("details" in result) current.details = result.details;
        if (typeof result.isError === "boolean") current.isError = result.isError;
        patched = true;
        return undefined;
      },
    );
    return patched ? (current as ToolResultPatch) : undefined;
  });
  hooks.sessionBeforeCompact = when(runner, "session_before_compact", async (event) => {
    let answer: SessionBeforeCompactResult;
    await runner.emit(
      "session_before_compact",
      {
        type: "session_before_compact",
        preparation: event.preparation,
        branchEntries: event.branchEntries,
        ...(event.customInstructions !== undefined ? { customInstructions: event.customInstructions } : {}),
        reason: event.reason,
        willRetry: event.willRetry,
        signal: event.signal,
      },
      (result) => {
        if (result.cancel === true) {
          answer = { cancel: true };
          return "stop";
        }
        const supplied = result.compaction;
        if (supplied && typeof supplied.summary === "string") {
          answer = {
            compaction: {
              summary: supplied.summary,
              ...(supplied.firstKeptEntryId !== undefined
                ? { firstKeptEntryId: supplied.firstKeptEntryId }
                : {}),
              ...(supplied.details !== undefined ? { details: supplied.details } : {}),
            },
          };
          return "stop";
        }
        return undefined;
      },
    );
    return answer;
  });
  hooks.sessionCompact = when(runner, "session_compact", async (event) => {
    await runner.emit("session_compact", { type: "session_compact", ...event });
  });
  hooks.sessionCompactFailed = when(runner, "session_compact_failed", async (event) => {
    await runner.emit("session_compact_failed", { type: "session_compact_failed", ...event });
  });
  hooks.sessionBeforeTree = when(runner, "session_before_tree", async (event) => {
    let answer: SessionBeforeTreeResult;
    await runner.emit(
      "session_before_tree",
      { type: "session_before_tree", preparation: event.preparation, signal: event.signal },
      (result) => {
        if (result.cancel === true) {
          answer = { cancel: true };
          return "stop";
        }
        if (result.summary && typeof result.summary.summary === "string") {
          answer = { summary: result.summary };
          return "stop";
        }
        return undefined;
      },
    );
    return answer;
  });
  hooks.sessionTree = when(runner, "session_tree", async (event) => {
    await runner.emit("session_tree", { type: "session_tree", ...event });
  });
  hooks.sessionBeforeSwitch = when(runner, "session_before_switch", async (event) => {
    let answer: SessionMoveCancel | undefined;
    await runner.emit(
      "session_before_switch",
      {
        type: "session_before_switch",
        reason: event.reason,
        ...(event.targetSessionFile !== undefined ? { targetSessionFile: event.targetSessionFile } : {}),
      },
      (result, path) => {
        if (result.cancel !== true) return undefined;
        answer = { cancel: true, path };
        return "stop";
      },
    );
    return answer;
  });
  hooks.sessionBeforeFork = when(runner, "session_before_fork", async (event) => {
    let answer: SessionMoveCancel | undefined;
    await runner.emit(
      "session_before_fork",
      { type: "session_before_fork", entryId: event.entryId, position: event.position },
      (result, path) => {
        if (result.cancel !== true) return undefined;
        answer = { cancel: true, path };
        return "stop";
      },
    );
    return answer;
  });
  hooks.userBash = when(runner, "user_bash", async (event) => {
    let answer: { result: NonNullable<UserBashEventResult["result"]> } | undefined;
    await runner.emit("user_bash", { type: "user_bash", ...event }, (result) => {
      const r = result.result;
      if (!r || typeof r.output !== "string") return undefined;
      answer = {
        result: {
          output: r.output,
          exitCode: r.exitCode,
          cancelled: r.cancelled === true,
          truncated: r.truncated === true,
        },
      };
      return "stop";
    });
    return answer;
  });
  hooks.modelSelect = when(runner, "model_select", async (event) => {
    await runner.emit("model_select", { type: "model_select", ...event });
  });
  hooks.thinkingLevelSelect = when(runner, "thinking_level_select", async (event) => {
    await runner.emit("thinking_level_select", { type: "thinking_level_select", ...event });
  });
  for (const key of Object.keys(hooks) as (keyof ExtensionHooks)[]) {
    if (hooks[key] === undefined) delete hooks[key];
  }
  return hooks;
}
