/**
 * One thread's extensions: an API object per extension, their handlers and
 * registrations, and event dispatch. Every call into an extension is bounded by the
 * thread's hook timeout, runs with stdout guarded, and turns a throw or a timeout into a
 * warning naming the extension's path; the thread carries on with "no answer". After
 * shutdown every API and `ctx` object of this runner refuses with a "stale" error.
 */
import type { ToolOperations } from "@knightcode/agent";
import {
  type ExtensionFlag,
  type ExtensionFlagArg,
  resolveFlagArgs,
  type Warning,
} from "@knightcode/app-server-protocol";
import type {
  ExtensionAPI,
  ExtensionCommandContext,
  ExtensionContext,
  ExtensionEventMap,
  ExtensionEventName,
  ExtensionHandler,
  ExtensionMode,
  ExtensionUIContext,
  FlagOptions,
  Model,
  ProviderConfig,
  ToolDefinition,
} from "./api-types.ts";
import { type BoundedOutcome, boundedCall, isThenable } from "./bounded-call.ts";
import { createEventBus } from "./event-bus.ts";
import { runExec } from "./exec.ts";
import type { ExtensionThreadPort } from "./host-contract.ts";
import {
  addMissing,
  getApiKeyAndHeaders,
  labelOf,
  piApiExtras,
  piCommandExtras,
  piUiExtras,
} from "./pi/pi-surface.ts";
import { sessionReplaceMethods } from "./session-replace.ts";
import { callAsExtension, type ExtensionCaller, runAsExtension, runAsHost } from "./stdout-guard.ts";

/** Thrown by any API or `ctx` call after the thread unloaded or reloaded its extensions. */
export class StaleExtensionError extends Error {
  constructor(what: string) {
    super(
      `This extension ${what} is stale: its thread was unloaded, replaced or reloaded. Use the ctx of the current event.`,
    );
    this.name = "StaleExtensionError";
  }
}

type AnyHandler = ExtensionHandler<unknown, unknown>;

/** One loaded extension of this thread. */
export interface LoadedExtension {
  path: string;
  handlers: Map<ExtensionEventName, AnyHandler[]>;
  caller: ExtensionCaller;
  /** The flags it registered, also those another extension had taken first (pi lets both read them). */
  flagNames: Set<string>;
}

/** A registration with the extension that made it. */
export interface Registered<T> {
  path: string;
  value: T;
}

/** What a runner is built from. */
export interface RunnerOptions {
  threadId: string;
  cwd: string;
  mode: ExtensionMode;
  hasUI: boolean;
  ui: ExtensionUIContext;
  port: ExtensionThreadPort | undefined;
  hookTimeoutMs: number;
  /** Where warnings go: load warnings while loading, subscriber warnings afterwards. */
  warn(warning: Warning): void;
  /** The names of the built-in tools (for `getAllTools`/`setActiveTools`). */
  builtinToolNames: readonly string[];
  /** The thread's tool operations: where `exec` runs and what `ctx.toolOperations()` returns. */
  toolOperations: ToolOperations;
  /** Reloads the thread's extensions (`ctx.reload()`), when the host supports it. */
  reload?(): Promise<void>;
  /** Flags from the server's command line, for `getFlag`. */
  flagArgs?: readonly ExtensionFlagArg[];
}

/** A thread's extensions and their registrations. */
export class ExtensionRunner {
  readonly extensions: LoadedExtension[] = [];
  readonly tools = new Map<string, Registered<ToolDefinition>>();
  readonly commands = new Map<
    string,
    Registered<{ description: string; handler: (args: string, ctx: ExtensionCommandContext) => unknown }>
  >();
  readonly providers = new Map<string, Registered<ProviderConfig>>();
  readonly flags = new Map<string, Registered<FlagOptions>>();
  readonly bus = createEventBus();
  activeToolNames: string[] | undefined;
  stale = false;
  /** Called when handlers or registrations change after load (the host rebuilds its hooks). */
  onChange: (() => void) | undefined;
  /** Called when a provider is registered or withdrawn (pi: after load that takes effect at once). */
  onProvidersChanged: (() => void) | undefined;
  /** `handlersOf` per event; cleared whenever a handler or an extension comes or goes. */
  private readonly handlerLists = new Map<
    ExtensionEventName,
    { extension: LoadedExtension; handler: AnyHandler }[]
  >();
  /** The system prompt the current `before_agent_start` chain has reached. */
  pendingSystemPrompt: string | undefined;
  readonly ctx: ExtensionContext;
  readonly commandCtx: ExtensionCommandContext;

  constructor(readonly options: RunnerOptions) {
    this.ctx = this.createContext();
    this.commandCtx = this.createCommandContext(this.ctx);
  }

  /** Refuses when stale; returns the thread port or throws when this host has no thread. */
  private port(): ExtensionThreadPort {
    if (this.stale) throw new StaleExtensionError("API");
    const port = this.options.port;
    if (!port) throw new Error("This extension host has no thread to act on");
    return port;
  }

  private live(what: string): void {
    if (this.stale) throw new StaleExtensionError(what);
  }

  /** A warning naming the extension. */
  warnFor(path: string, message: string): void {
    if (this.stale) return;
    this.options.warn({ source: "extension", path, message });
  }

  /** Registers a freshly imported extension and runs its factory; false when the factory failed. */
  async load(path: string, factory: (api: ExtensionAPI) => unknown): Promise<boolean> {
    let reported = false;
    const extension: LoadedExtension = {
      path,
      handlers: new Map(),
      flagNames: new Set(),
      caller: {
        path,
        wroteToStdout: () => {
          if (reported) return;
          reported = true;
          this.warnFor(
            path,
            `Extension wrote to stdout, which carries the protocol; the output went to stderr (${path})`,
          );
        },
      },
    };
    this.extensions.push(extension);
    this.handlerLists.clear();
    const api = this.createApi(extension);
    const outcome = await boundedCall(
      () => runAsExtension(extension.caller, () => factory(api)),
      this.options.hookTimeoutMs,
    );
    if (outcome.kind === "value") return true;
    this.extensions.splice(this.extensions.indexOf(extension), 1);
    this.handlerLists.clear();
    this.dropRegistrationsOf(path);
    this.warnFor(
      path,
      outcome.kind === "timeout"
        ? `Extension factory did not finish within ${this.options.hookTimeoutMs} ms: ${path}`
        : `Extension factory threw: ${errorText(outcome.error)} (${path})`,
    );
    return false;
  }

  private dropRegistrationsOf(path: string): void {
    for (const map of [this.tools, this.commands, this.providers, this.flags] as Map<
      string,
      Registered<unknown>
    >[]) {
      for (const [name, entry] of map) if (entry.path === path) map.delete(name);
    }
  }

  /** Whether any extension listens to `event` (dispatch is skipped otherwise). */
  has(event: ExtensionEventName): boolean {
    return this.extensions.some((e) => (e.handlers.get(event)?.length ?? 0) > 0);
  }

  /**
   * Calls every handler of `event` in load order. `step` sees each answer and returns
   * `"stop"` to end the chain (a block, a handled input).
   */
  async emit<K extends ExtensionEventName>(
    event: K,
    payload: ExtensionEventMap[K][0],
    step?: (result: ExtensionEventMap[K][1], path: string) => "stop" | undefined,
  ): Promise<void> {
    if (this.stale) return;
    for (const extension of this.extensions) {
      const handlers = extension.handlers.get(event);
      if (!handlers) continue;
      for (const handler of handlers) {
        const outcome = await this.call(extension, event, () => handler(payload, this.ctx));
        if (this.stale) return;
        if (outcome.kind !== "value" || outcome.value === undefined || outcome.value === null) continue;
        if (step?.(outcome.value as ExtensionEventMap[K][1], extension.path) === "stop") return;
      }
    }
  }

  /**
   * Calls every handler of an observer event (one whose answers are ignored: pi's
   * fire-and-forget events) at once, in load order, without waiting for one before the
   * next. Returns a promise, settling when every handler that answered with one settled or
   * timed out, only when some did: a turn of synchronous handlers allocates nothing per
   * event, which keeps per-delta events cheap.
   */
  notify<K extends ExtensionEventName>(
    event: K,
    payload: ExtensionEventMap[K][0],
  ): Promise<void> | undefined {
    if (this.stale) return undefined;
    let pending: Promise<unknown>[] | undefined;
    for (const { extension, handler } of this.handlersOf(event)) {
      let answer: unknown;
      try {
        answer = callAsExtension(extension.caller, handler, payload, this.ctx);
      } catch (error) {
        this.report(extension, event, { kind: "error", error });
        continue;
      }
      if (!isThenable(answer)) continue;
      pending ??= [];
      pending.push(this.call(extension, event, () => answer));
    }
    return pending && Promise.all(pending).then(() => undefined);
  }

  /** Every handler of `event` in load order, kept until handlers or extensions change. */
  private handlersOf(
    event: ExtensionEventName,
  ): readonly { extension: LoadedExtension; handler: AnyHandler }[] {
    let list = this.handlerLists.get(event);
    if (list === undefined) {
      list = this.extensions.flatMap((extension) =>
        (extension.handlers.get(event) ?? []).map((handler) => ({ extension, handler })),
      );
      this.handlerLists.set(event, list);
    }
    return list;
  }

  /** One bounded call into an extension; a throw or timeout becomes its warning. */
  async call<T>(
    extension: LoadedExtension,
    what: string,
    run: () => T | Promise<T>,
  ): Promise<BoundedOutcome<T>> {
    const outcome = await boundedCall(
      () => runAsExtension(extension.caller, run),
      this.options.hookTimeoutMs,
    );
    this.report(extension, what, outcome);
    return outcome;
  }

  private report(extension: LoadedExtension, what: string, outcome: BoundedOutcome<unknown>): void {
    if (outcome.kind === "error") {
      this.warnFor(
        extension.path,
        `Extension handler for ${what} threw: ${errorText(outcome.error)} (${extension.path})`,
      );
    } else if (outcome.kind === "timeout") {
      this.warnFor(
        extension.path,
        `Extension handler for ${what} did not answer within ${this.options.hookTimeoutMs} ms and was skipped (${extension.path})`,
      );
    }
  }

  /** The extension that registered a tool, command or provider. */
  extensionAt(path: string): LoadedExtension | undefined {
    return this.extensions.find((e) => e.path === path);
  }

  /** Marks everything stale after `session_shutdown` ran. */
  async shutdown(
    reason: "quit" | "reload" | "new" | "resume" | "fork",
    targetSessionFile?: string,
  ): Promise<void> {
    if (this.stale) return;
    await this.emit("session_shutdown", {
      type: "session_shutdown",
      reason,
      ...(targetSessionFile !== undefined ? { targetSessionFile } : {}),
    });
    this.stale = true;
  }

  private register<T>(
    map: Map<string, Registered<T>>,
    kind: string,
    name: string,
    path: string,
    value: T,
  ): void {
    const existing = map.get(name);
    if (existing && existing.path !== path) {
      this.warnFor(
        path,
        `${kind} "${name}" is registered by both ${existing.path} and ${path}; the first (${existing.path}) wins`,
      );
      return;
    }
    map.set(name, { path, value });
    this.onChange?.();
  }

  private createApi(extension: LoadedExtension): ExtensionAPI {
    const path = extension.path;
    const guard = () => this.live("API");
    const host = <T>(fn: (port: ExtensionThreadPort) => T): T => {
      const port = this.port();
      return runAsHost(() => fn(port));
    };
    const api: ExtensionAPI = {
      on: (event, handler) => {
        guard();
        const list = extension.handlers.get(event) ?? [];
        list.push(handler as AnyHandler);
        extension.handlers.set(event, list);
        this.handlerLists.clear();
        this.onChange?.();
      },
      registerTool: (tool) => {
        guard();
        if (typeof tool?.name !== "string" || tool.name === "" || typeof tool.execute !== "function") {
          throw new Error("registerTool needs a name and an execute function");
        }
        this.register(this.tools, "Tool", tool.name, path, tool as unknown as ToolDefinition);
      },
      registerCommand: (name, options) => {
        guard();
        if (typeof options?.handler !== "function") throw new Error("registerCommand needs a handler");
        const clean = name.replace(/^\//, "");
        this.register(this.commands, "Command", clean, path, {
          description: options.description ?? "",
          handler: options.handler as (args: string, ctx: ExtensionCommandContext) => unknown,
        });
      },
      registerFlag: (name, options) => {
        guard();
        const clean = typeof name === "string" ? flagName(name) : "";
        if (clean === "" || (options?.type !== "boolean" && options?.type !== "string")) {
          throw new Error('registerFlag needs a name and a type of "boolean" or "string"');
        }
        extension.flagNames.add(clean);
        this.register(this.flags, "Flag", clean, path, options);
      },
      getFlag: (name) => {
        guard();
        const clean = flagName(name);
        // like pi: only a flag this extension registered, passed value first, else its default
        if (!extension.flagNames.has(clean)) return undefined;
        return this.passedFlags().values.get(clean) ?? this.flags.get(clean)?.value.default;
      },
      registerProvider: (name, config) => {
        guard();
        const before = this.providers.get(name);
        this.register(this.providers, "Provider", name, path, config);
        if (this.providers.get(name) !== before) this.onProvidersChanged?.();
      },
      unregisterProvider: (name) => {
        guard();
        if (this.providers.get(name)?.path !== path) return;
        this.providers.delete(name);
        this.onProvidersChanged?.();
      },
      sendMessage: (message, options = {}) =>
        host((port) =>
          port.sendMessage(
            {
              customType: message.customType,
              content: message.content,
              display: message.display ?? true,
              ...(message.details !== undefined ? { details: message.details } : {}),
            },
            options,
          ),
        ),
      sendUserMessage: (content, options = {}) =>
        host((port) => {
          const text =
            typeof content === "string"
              ? content
              : content
                  .filter((c) => c.type === "text")
                  .map((c) => (c as { text: string }).text)
                  .join("\n");
          const images = typeof content === "string" ? [] : content.filter((c) => c.type === "image");
          port.sendUserMessage(text, images as never, options);
        }),
      appendEntry: (customType, data) => host((port) => port.appendEntry(customType, data)),
      setSessionName: (name) => host((port) => port.setSessionName(name)),
      getSessionName: () => host((port) => port.session().name),
      setLabel: (entryId, label) => host((port) => port.setLabel(entryId, label)),
      exec: (command, args, options = {}) => {
        guard();
        return runAsHost(() =>
          runExec(this.options.toolOperations, command, args, { cwd: this.options.cwd, ...options }),
        );
      },
      getActiveTools: () => {
        guard();
        return this.activeToolNames ?? this.allToolNames();
      },
      getAllTools: () => {
        guard();
        return this.allToolNames().map((name) => {
          const tool = this.tools.get(name)?.value;
          return {
            name,
            description: tool?.description ?? "",
            parameters: tool?.parameters ?? ({} as never),
          };
        });
      },
      setActiveTools: (names) => {
        guard();
        const known = new Set(this.allToolNames());
        this.activeToolNames = names.filter((n) => known.has(n));
      },
      getCommands: () => {
        guard();
        return [...this.commands].map(([name, entry]) => ({
          name,
          description: entry.value.description,
          source: "extension" as const,
          path: entry.path,
        }));
      },
      setModel: (model) => host((port) => port.setModel(model)),
      getThinkingLevel: () => host((port) => port.thinkingLevel()),
      setThinkingLevel: (level) => host((port) => port.setThinkingLevel(level)),
      events: {
        on: (channel, handler) => {
          guard();
          return this.bus.on(channel, (data) => runAsExtension(extension.caller, () => handler(data)));
        },
        emit: (channel, data) => {
          guard();
          this.bus.emit(channel, data);
        },
      },
    };
    return addMissing(api, piApiExtras(this.options.ui));
  }

  /** The command-line flags resolved against the flags registered so far. */
  passedFlags() {
    return resolveFlagArgs(this.options.flagArgs ?? [], (name) => this.flags.get(name)?.value.type);
  }

  /** The registered flags with the values `getFlag` gives them. */
  flagList(): ExtensionFlag[] {
    const passed = this.passedFlags().values;
    return [...this.flags].map(([name, { path, value: options }]) => {
      const value = passed.get(name) ?? options.default;
      return {
        name,
        type: options.type,
        ...(options.description === undefined ? {} : { description: options.description }),
        path,
        ...(value === undefined ? {} : { value }),
      };
    });
  }

  /** Built-in names, then extension tools that are not overrides, in registration order. */
  allToolNames(): string[] {
    const names = [...this.options.builtinToolNames];
    for (const name of this.tools.keys()) if (!names.includes(name)) names.push(name);
    return names;
  }

  private createContext(): ExtensionContext {
    const runner = this;
    const port = () => runner.port();
    addMissing(runner.options.ui, piUiExtras(runner.options.ui));
    const ctx: ExtensionContext = {
      get mode() {
        runner.live("ctx");
        return runner.options.mode;
      },
      get ui() {
        runner.live("ctx");
        return runner.options.ui;
      },
      get hasUI() {
        runner.live("ctx");
        return runner.options.hasUI;
      },
      get cwd() {
        runner.live("ctx");
        return runner.options.cwd;
      },
      get threadId() {
        runner.live("ctx");
        return runner.options.threadId;
      },
      get sessionManager() {
        const session = () => port().session();
        return {
          getHeader: () => session().header,
          getSessionId: () => session().header.id,
          getSessionFile: () => session().path,
          getCwd: () => session().header.cwd,
          getEntries: () => session().entries,
          getBranch: () => session().branch(),
          getLeafId: () => session().leafId,
          getEntry: (id: string) => session().entries.find((e) => e.id === id),
          getSessionName: () => session().name,
          getLabel: (id: string) => labelOf(session().entries, id),
        };
      },
      get modelRegistry() {
        runner.live("ctx");
        return {
          getApiKeyAndHeaders: getApiKeyAndHeaders(ctx),
          getAll: () => runAsHost(() => port().listModels()),
          find: (provider: string, id: string) => runAsHost(() => port().findModel(provider, id)),
          getApiKey: (model: Model) => runAsHost(() => port().getApiKey(model)),
        };
      },
      get model() {
        return port().model();
      },
      isIdle: () => port().isIdle(),
      get signal() {
        return port().signal();
      },
      abort: () => runAsHost(() => port().abort()),
      hasPendingMessages: () => port().hasPendingMessages(),
      getContextUsage: () => port().contextUsage(),
      compact: (options = {}) => {
        const done = runAsHost(() => port().compact(options.customInstructions));
        done.then(
          () => options.onComplete?.(),
          (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))),
        );
      },
      getSystemPrompt: () => {
        runner.live("ctx");
        return runner.pendingSystemPrompt ?? port().systemPrompt();
      },
      toolOperations: () => {
        runner.live("ctx");
        return runner.options.toolOperations;
      },
    };
    // pi's `ctx.shutdown()` ends its process; a thread of a shared server is not that.
    return addMissing(ctx, { shutdown: () => {} });
  }

  private createCommandContext(ctx: ExtensionContext): ExtensionCommandContext {
    const command = Object.create(ctx) as ExtensionCommandContext;
    addMissing(
      command,
      sessionReplaceMethods(() => this.port(), runAsHost),
    );
    addMissing(command, piCommandExtras());
    command.waitForIdle = () => runAsHost(() => this.port().waitForIdle());
    command.reload = async () => {
      this.live("ctx");
      if (!this.options.reload) throw new Error("This host cannot reload extensions");
      await runAsHost(() => this.options.reload!());
    };
    return command;
  }
}

/** A flag's name without the `--` (pi's docs write `getFlag("--plan")`, its examples `getFlag("plan")`). */
function flagName(name: string): string {
  return String(name).replace(/^--/, "");
}

/** A thrown value as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
