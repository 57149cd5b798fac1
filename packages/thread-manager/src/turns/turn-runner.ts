/**
 * Runs turns: admission and input hooks, the durable start marker, the agent run with
 * approvals and compaction wired in, and the end marker with its notifications. A turn
 * is one agent run between its markers; steers and retries stay inside it.
 */

import type { AnyAgentTool } from "@knightcode/agent";
import type { AssistantMessage, ImageContent, Model, TextContent, UserMessage } from "@knightcode/ai";
import { callHook } from "../extensions/extension-hooks.ts";
import { contentImages, contentText, userMessage } from "../history/message-content.ts";
import type { ThreadPort } from "../thread-port.ts";
import { createTurnAgent, persistMessage } from "./agent-wiring.ts";
import type { TurnEnvironment } from "./environment.ts";
import { Turn } from "./turn.ts";
import { normalizeErrorKind } from "./turn-error.ts";
import { finishTurn, type TurnFailure } from "./turn-settlement.ts";

/**
 * The tools of one turn: the environment's, with extension tools added; an extension
 * tool named like a built-in takes its place (and keeps its approval class, which goes by
 * name). An extension's `setActiveTools` choice filters the result.
 */
export async function turnTools(env: TurnEnvironment, thread: ThreadPort): Promise<AnyAgentTool[]> {
  const base = await env.tools(thread.cwd, thread.tools.ops);
  const extra = thread.extensions.tools?.() ?? [];
  const active = thread.extensions.activeTools?.();
  if (extra.length === 0 && active === undefined) return base;
  const byName = new Map(extra.map((tool) => [tool.name, tool]));
  const merged = base.map((tool) => byName.get(tool.name) ?? tool);
  for (const tool of extra) if (!base.some((b) => b.name === tool.name)) merged.push(tool);
  return active === undefined ? merged : merged.filter((tool) => active.includes(tool.name));
}

/** An input about to become a turn. */
export interface TurnInput {
  text: string;
  images: ImageContent[];
  /** Parts after the text: the MCP resources the start named (see `tools/mcp-resources.ts`). */
  context?: (TextContent | ImageContent)[];
  clientMessageId?: string;
  requestId?: string;
  initiator: string;
}

/**
 * Writes the durable start marker, makes the turn the running one and sends
 * `turn/started`. Admission must already be held; a failed write releases it.
 */
export function openTurn(
  thread: ThreadPort,
  input: Pick<TurnInput, "clientMessageId" | "requestId">,
  model: Model,
): Turn {
  let turn: Turn;
  try {
    turn = Turn.open(thread.port, input.clientMessageId);
  } catch (error) {
    thread.release();
    throw error;
  }
  thread.running = turn;
  thread.model = model;
  const checkpoints = thread.checkpoints;
  const taking = checkpoints.take(turn.id);
  turn.checkpoint = {
    // taken beside the turn's preparation; the first tool call waits for it
    taken: taking.then(
      () => undefined,
      (error: unknown) =>
        thread.warn({
          source: "server",
          message: `No undo checkpoint for this turn: ${error instanceof Error ? error.message : String(error)}`,
        }),
    ),
    workingTree: taking.catch(() => undefined),
    noteChanges: (changes) => checkpoints.noteChanges(changes),
  };
  turn.announce(input.requestId);
  return turn;
}

/**
 * Admits and starts a turn. Resolves once the input is accepted (`started`), consumed
 * by an extension (`handled`), or interrupted in its input hooks (`cancelled`); the turn
 * itself runs on.
 */
export async function startTurn(
  thread: ThreadPort,
  env: TurnEnvironment,
  input: TurnInput,
  model: Model,
): Promise<"started" | "handled" | "cancelled"> {
  thread.admit("turn");
  const pending = { cancelled: false, controller: new AbortController() };
  thread.pendingStart = pending;
  let text = input.text;
  let images = input.images;
  try {
    const hook = thread.extensions.hooks.input;
    const result = await callHook(
      hook && (() => hook({ text, images, source: "start" })),
      { action: "continue" as const },
      (w) => thread.warn(w),
    );
    if (!pending.cancelled && result.action !== "handled") {
      text = result.text ?? text;
      images = result.images ?? images;
      if (env.expandInput) text = await env.expandInput(thread, text);
    }
    if (pending.cancelled || result.action === "handled") {
      thread.pendingStart = undefined;
      thread.release();
      return pending.cancelled ? "cancelled" : "handled";
    }
  } catch (error) {
    thread.pendingStart = undefined;
    thread.release();
    throw error;
  }
  thread.pendingStart = undefined;
  const turn = openTurn(thread, input, model);
  const prompt = userMessage(text, images, thread.port.clock.now(), input.context);
  turn.done = runTurn(thread, env, turn, model, prompt);
  return "started";
}

/** What the agent run starts with: its tools (before and after the thread's sources) and system prompt. */
interface RunSetup {
  base: AnyAgentTool[];
  tools: AnyAgentTool[];
  systemPrompt: string | undefined;
  /** The turn-start snapshot of the working files; no tool runs before it is taken. */
  filesSettled?: Promise<void>;
}

/**
 * Before the run: the threshold check, the turn's tools, the system prompt and
 * `before_agent_start` (which may replace the prompt and add a message). Undefined when
 * the turn was interrupted meanwhile.
 */
async function prepareRun(
  thread: ThreadPort,
  env: TurnEnvironment,
  turn: Turn,
  prompt: UserMessage,
): Promise<RunSetup | undefined> {
  const signal = turn.controller.signal;
  // The turn's start as a tree, before anything of it can touch a file: its tools wait for
  // it (`filesSettled`), and so does an extension's hook, so a thread with hooks takes it
  // here, before them. Without any, the model request does not wait for git (a spawn or
  // more per turn: ~2–3 ms outside a repository, more inside one).
  // (the tree comes from the undo checkpoint's walk when it has one)
  const filesSettled = env.diffs?.began(
    thread.id,
    turn.id,
    thread.cwd,
    (notification) => thread.port.send(notification),
    turn.checkpoint?.workingTree,
  );
  if (filesSettled && Object.values(thread.extensions.hooks).some((hook) => hook !== undefined))
    await filesSettled;
  if (!signal.aborted) await env.compaction.maybeCompact(thread, "threshold", signal);
  if (signal.aborted) return undefined;
  const base = await turnTools(env, thread);
  const tools = await thread.port.sourceTools(base);
  let systemPrompt = await env.systemPrompt(thread, tools);
  const hook = thread.extensions.hooks.beforeAgentStart;
  const answer = await callHook(
    hook &&
      (() =>
        hook({
          turnId: turn.id,
          prompt: contentText(prompt.content),
          images: contentImages(prompt.content),
          systemPrompt: systemPrompt ?? "",
          selectedTools: tools.map((t) => t.name),
        })),
    undefined,
    (w) => thread.warn(w),
  );
  if (answer && typeof answer.systemPrompt === "string") systemPrompt = answer.systemPrompt;
  if (answer?.message) turn.pendingCustomMessages.push(answer.message);
  thread.lastSystemPrompt = systemPrompt ?? "";
  if (signal.aborted || turn.interrupted) return undefined;
  return { base, tools, systemPrompt, ...(filesSettled ? { filesSettled } : {}) };
}

/** What the run has done so far, as settlement needs it. */
interface RunProgress {
  lastAssistant: AssistantMessage | undefined;
  /** The prompt reached the transcript (or the agent took it). */
  promptPersisted: boolean;
}

/** The turn's body: prepare, run the agent (with steers and overflow recovery), settle. */
async function runTurn(
  thread: ThreadPort,
  env: TurnEnvironment,
  turn: Turn,
  model: Model,
  prompt: UserMessage,
): Promise<void> {
  const port = thread.port;
  const progress: RunProgress = { lastAssistant: undefined, promptPersisted: false };
  let failure: TurnFailure | undefined;
  try {
    const setup = await prepareRun(thread, env, turn, prompt);
    if (!setup) {
      // Interrupted after acceptance but before the run: the input is kept, no model request is made.
      persistMessage(port, turn, prompt);
      progress.promptPersisted = true;
    } else {
      await runAgent(thread, env, turn, model, setup, prompt, progress);
    }
  } catch (error) {
    if (!port.closed) {
      const message = error instanceof Error ? error.message : String(error);
      failure = { message, kind: normalizeErrorKind(undefined, message) };
    }
  }
  if (!progress.promptPersisted && !port.closed) {
    try {
      persistMessage(port, turn, prompt);
    } catch {
      // Ownership loss already closed the thread.
    }
  }
  // the turn's last diff goes out now, without holding the settlement (a snapshot of a large tree takes a while)
  void env.diffs?.ending(thread.id, turn.id);
  await finishTurn(port, turn, progress.lastAssistant, failure);
  env.settled(thread);
}

/** The agent's run: the prompt, steers accepted after its last batch, and one overflow recovery. */
async function runAgent(
  thread: ThreadPort,
  env: TurnEnvironment,
  turn: Turn,
  model: Model,
  setup: RunSetup,
  prompt: UserMessage,
  progress: RunProgress,
): Promise<void> {
  const signal = turn.controller.signal;
  const port = thread.port;
  const hooks = port.hooks();
  const warn = (w: Parameters<ThreadPort["warn"]>[0]) => port.warn(w);
  const agent = createTurnAgent(turn, {
    port,
    model,
    streamFn: env.streamFn,
    getApiKey: (m) => env.getApiKey(m),
    tools: { base: setup.base, initial: setup.tools },
    systemPrompt: setup.systemPrompt,
    ...(setup.filesSettled ? { filesSettled: setup.filesSettled } : {}),
    thinkingLevel: thread.settings.thinkingLevel,
    projectSettings: thread.projectSettings,
    ...(env.homeDir !== undefined ? { homeDir: env.homeDir } : {}),
    afterToolBatch: (s) => env.compaction.afterToolBatch(thread, s),
    contextTokens: () => env.compaction.contextTokens(thread),
    onFinal: (m) => {
      if (m.role === "assistant") progress.lastAssistant = m;
    },
  });
  turn.attach(agent);
  await callHook(hooks.agentStart && (() => hooks.agentStart!({ turnId: turn.id })), undefined, warn);
  await agent.prompt(prompt);
  progress.promptPersisted = true;
  let recovered = false;
  for (;;) {
    // Steers accepted after the model's last tool batch still belong to this turn.
    while (!signal.aborted && agent.getQueue().steering.length > 0) await agent.continue();
    if (signal.aborted) break;
    const last = progress.lastAssistant;
    if (
      !recovered &&
      last &&
      (await env.compaction.recover(thread, last, signal, async () => {
        // The attempt's `turn_end` hooks finish before its `agent_end`, as at settlement.
        await turn.deferredHooksSettled();
        await callHook(
          hooks.agentEnd &&
            (() => hooks.agentEnd!({ turnId: turn.id, aborted: false, messages: turn.takeRunMessages() })),
          undefined,
          warn,
        );
      }))
    ) {
      recovered = true;
      agent.setMessages(port.context());
      await agent.continue();
      continue;
    }
    // A steer accepted while recovery was deciding still runs here, never in a later turn.
    if (signal.aborted || agent.getQueue().steering.length === 0) break;
  }
}
