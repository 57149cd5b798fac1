/**
 * The `ExtensionThreadPort` of one thread: what its extensions' actions may do, bound to
 * that thread's session and runtime only. The runtime is attached after the extension
 * host is built (the host is built first so `session_start` warnings join the load
 * warnings); until then the port answers from the session alone. Once the runtime is
 * closed every action refuses, so a captured API can never act on a later load.
 */
import type { ImageContent, Model, ThinkingLevel } from "@knightcode/ai";
import type { ExtensionThreadPort, SessionReplaceRequest, SessionView } from "@knightcode/extensions";
import type { NewEntry, SessionFile } from "@knightcode/session-store";
import { notificationsBetweenTurns } from "../history/items-between-turns.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { ModelSource } from "../threads/model-source.ts";

/** Turn-level actions the manager performs for an extension. */
export interface ExtensionTurnActions {
  /** Starts (or queues) a user input as a turn, as `turn/queue/add` would. */
  queueInput(runtime: ThreadPort, text: string, images: ImageContent[]): Promise<void>;
  /** Hands input to the running turn. */
  steer(runtime: ThreadPort, text: string, images: ImageContent[]): void;
  interrupt(runtime: ThreadPort): void;
  compact(runtime: ThreadPort, customInstructions: string | undefined): Promise<void>;
  contextTokens(runtime: ThreadPort): number | undefined;
  /**
   * `ctx.newSession()` / `ctx.fork()` from a command: the thread replaced as `/new` and
   * `/fork` replace it, `setup` run on the new one first; undefined when a guard refused.
   */
  replaceSession(
    runtime: ThreadPort,
    request: SessionReplaceRequest,
    setup: ((fresh: ThreadPort) => Promise<void>) | undefined,
  ): Promise<ThreadPort | undefined>;
}

/** A port with its late-bound runtime. */
export interface BoundExtensionPort extends ExtensionThreadPort {
  attach(runtime: ThreadPort): void;
}

function sessionView(session: SessionFile): SessionView {
  return {
    get header() {
      return session.header;
    },
    get path() {
      return session.path;
    },
    get entries() {
      return session.entries;
    },
    get name() {
      return session.name;
    },
    get leafId() {
      return session.leafId ?? null;
    },
    branch: () => session.branch(),
  };
}

/** Builds the port of one thread load. */
export function createExtensionPort(
  session: SessionFile,
  models: ModelSource,
  actions: ExtensionTurnActions | undefined,
  reload?: (runtime: ThreadPort) => Promise<void>,
  providersChanged?: (runtime: ThreadPort) => void,
): BoundExtensionPort {
  let runtime: ThreadPort | undefined;
  const open = (): ThreadPort | undefined => {
    if (runtime?.closed) throw new Error(`Thread ${session.id} is unloaded; this extension context is stale`);
    return runtime;
  };
  const need = (what: string): ThreadPort => {
    const r = open();
    if (!r) throw new Error(`${what} is not available while the thread is loading`);
    return r;
  };
  // While the thread loads (`session_start`) entries go straight to the owned session.
  const append = (entry: NewEntry): void => {
    const r = open();
    if (r) r.append(entry);
    else session.append(entry);
  };
  const turnActions = (what: string): ExtensionTurnActions => {
    if (!actions) throw new Error(`${what} is not available in this host`);
    return actions;
  };
  return {
    attach(r) {
      runtime = r;
    },
    warn: (warning) => {
      if (runtime && !runtime.closed) runtime.warn(warning);
    },
    session: () => {
      open();
      return sessionView(session);
    },
    model: () => open()?.model,
    listModels: () => models.list(),
    findModel: (provider, id) => models.find({ provider, id }),
    getApiKey: (model: Model) => models.getApiKey(model),
    isIdle: () => !(open()?.running && !open()!.running!.settling),
    signal: () => open()?.running?.controller.signal,
    abort: () => {
      const r = open();
      if (r) turnActions("abort").interrupt(r);
    },
    hasPendingMessages: () => (open()?.queue.length ?? 0) > 0 || (open()?.running?.steering.length ?? 0) > 0,
    contextUsage: () => {
      const r = open();
      const contextWindow = r?.model?.contextWindow ?? 0;
      const tokens = r && actions ? (actions.contextTokens(r) ?? null) : null;
      return {
        tokens,
        contextWindow,
        percent: tokens !== null && contextWindow > 0 ? (tokens / contextWindow) * 100 : null,
      };
    },
    systemPrompt: () => open()?.lastSystemPrompt ?? "",
    appendEntry: (customType, data) => {
      append({ type: "custom", customType, ...(data !== undefined ? { data } : {}) });
    },
    setSessionName: (name) => {
      append({ type: "session_info", name });
      const r = open();
      r?.toEveryone({ method: "thread/started", params: { thread: r.thread() } });
    },
    setLabel: (entryId, label) => {
      append({ type: "label", targetId: entryId, label });
    },
    sendMessage: (message, options) => {
      const r = need("sendMessage");
      if (r.running && !r.running.settling && options.deliverAs !== "nextTurn") {
        // joins the running turn's context at its next model request
        r.running.pendingCustomMessages.push(message);
        return;
      }
      // A turn still running (settling, e.g. from `agent_end`) shows the message as its item.
      if (r.running) r.running.recordCustomMessage(message);
      else {
        // Between turns: subscribers get it as an item of the turn `thread/read` files it under.
        const entry = r.append({ type: "custom_message", ...message });
        for (const n of notificationsBetweenTurns(r.id, r.session.branch(), entry.id)) r.toSubscribers(n);
      }
      // While the turn settles the input queues and starts once it has (as `turn/queue/add`).
      if (options.triggerTurn === true && (!r.running || r.running.settling)) {
        void turnActions("sendMessage")
          .queueInput(r, "", [])
          .catch((error: Error) =>
            r.warn({ source: "extension", message: `sendMessage could not start a turn: ${error.message}` }),
          );
      }
    },
    sendUserMessage: (text, images, options) => {
      const r = need("sendUserMessage");
      const act = turnActions("sendUserMessage");
      if (r.running && !r.running.settling && options.deliverAs !== "followUp") {
        act.steer(r, text, images);
        return;
      }
      void act.queueInput(r, text, images).catch((error: Error) =>
        r.warn({
          source: "extension",
          message: `sendUserMessage could not start a turn: ${error.message}`,
        }),
      );
    },
    compact: (customInstructions) => turnActions("compact").compact(need("compact"), customInstructions),
    setModel: async (model) => {
      const r = need("setModel");
      const found = await models.find({ provider: model.provider, id: model.id });
      if (!found || !(await models.available(found))) return false;
      const previousModel = r.model;
      r.settings.model = { provider: found.provider, id: found.id };
      r.model = found;
      r.append({ type: "model_change", provider: found.provider, modelId: found.id });
      const hook = r.extensions.hooks.modelSelect;
      if (hook) void hook({ model: found, previousModel, source: "set" }).catch(() => undefined);
      return true;
    },
    thinkingLevel: () => open()?.settings.thinkingLevel ?? "off",
    setThinkingLevel: (level: ThinkingLevel) => {
      const r = need("setThinkingLevel");
      const previousLevel = r.settings.thinkingLevel;
      r.settings.thinkingLevel = level;
      r.append({ type: "thinking_level_change", thinkingLevel: level });
      const hook = r.extensions.hooks.thinkingLevelSelect;
      if (hook && level !== previousLevel) void hook({ level, previousLevel }).catch(() => undefined);
    },
    replaceSession: async (request, setup) => {
      const r = need(request.kind === "new" ? "newSession" : "fork");
      const fresh = await turnActions("newSession").replaceSession(
        r,
        request,
        setup && ((f) => setup({ view: sessionView(f.session), append: (entry) => f.append(entry) })),
      );
      return fresh ? { cancelled: false, replacement: fresh.extensions } : { cancelled: true };
    },
    ...(reload ? { reloadExtensions: () => reload(need("reload")) } : {}),
    // before the runtime is attached the thread registers the host's providers itself
    providersChanged: () => {
      const r = runtime?.closed === false ? runtime : undefined;
      if (r && providersChanged) providersChanged(r);
    },
    waitForIdle: async () => {
      const r = open();
      while (r?.running) await r.running.done;
    },
  };
}
