/**
 * `ctx.ui` of a thread, carried over the protocol: dialogs become a routed
 * `extension/requestDialog` (one subscriber able to show dialogs is asked at a time, the
 * way approvals are routed), `notify`/`setStatus`/`setWidget`/`setWorkingMessage`/`setTitle`
 * become notifications for those subscribers. What is displayed is kept and replayed to
 * such a connection when it subscribes (see `DisplayState`). While the thread loads (its
 * `session_start`), the connection opening it counts for `hasUI`; its dialogs answer the
 * no-answer value then, since nobody is subscribed to be asked yet. A dialog answers with its no-answer value (undefined/false) at once when
 * no such subscriber is there, and when it is withdrawn: the running turn (or the
 * command that opened it) is interrupted, the extension's own signal aborts, or its timeout passes.
 */
import type {
  ExtensionRequestDialogParams,
  ExtensionRequestDialogResult,
  ServerNotification,
} from "@knightcode/app-server-protocol";
import type {
  ComponentFactory,
  CustomComponentOptions,
  ExtensionUIContext,
  ExtensionUIDialogOptions,
  LiveComponentSurface,
} from "@knightcode/extensions";
import { createNoUI } from "@knightcode/extensions/no-ui";
import { runAsHost } from "@knightcode/extensions/stdout-guard";
import type { ServerRequestPort } from "../api.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { BrokerChannel, RequestBroker } from "../turns/approval-broker.ts";
import { type DisplayNotification, DisplayState } from "./display-state.ts";

/** The channel of `extension/requestDialog`: only connections that declared the capability are asked. */
export const dialogChannel: BrokerChannel<ExtensionRequestDialogParams> = {
  send: (port, connectionId, params) =>
    port.requestExtensionDialog?.(connectionId, params) ?? {
      response: Promise.resolve({ value: null }),
      cancel: () => {},
    },
  failedAnswer: { value: null },
  accepts: (port, connectionId) => port.showsExtensionDialogs?.(connectionId) === true,
};

export type DialogBroker = RequestBroker<ExtensionRequestDialogParams>;

/** What the thread's UI needs from the manager. */
export interface DialogUIHost {
  dialogs: DialogBroker;
  port(): ServerRequestPort | undefined;
  /** The loaded runtime of the thread, once it exists and while it is open. */
  runtime(): ThreadPort | undefined;
  emit(connectionIds: string[], notification: ServerNotification): void;
  /** The connection loading the thread, while there is no runtime yet. */
  opener?: string;
}

/** A thread's `ctx.ui` and the replay of what it displays, for a connection that just subscribed. */
export interface ThreadDialogUI {
  ui: ExtensionUIContext;
  replayTo(connectionId: string): void;
}

/** Subscribers of the thread that show extension dialogs. */
function dialogSubscribers(host: DialogUIHost): string[] {
  const port = host.port();
  const runtime = host.runtime();
  if (!port || !runtime) return [];
  return runtime.subscribers.filter((id) => port.showsExtensionDialogs?.(id) === true);
}

/** Whether the connection opening a not yet loaded thread shows dialogs. */
function openerShowsDialogs(host: DialogUIHost): boolean {
  return (
    host.runtime() === undefined &&
    host.opener !== undefined &&
    host.port()?.showsExtensionDialogs?.(host.opener) === true
  );
}

/** Whether the thread has a UI right now (`ctx.hasUI`): a subscriber, or an opener, that shows dialogs. */
export function dialogsAvailable(host: DialogUIHost): boolean {
  return dialogSubscribers(host).length > 0 || openerShowsDialogs(host);
}

/** Builds the thread's `ctx.ui`. */
export function createThreadDialogUI(threadId: string, host: DialogUIHost): ThreadDialogUI {
  const shown = new DisplayState();
  const ask = async (
    dialog: Omit<ExtensionRequestDialogParams, "threadId" | "turnId">,
    opts: ExtensionUIDialogOptions | undefined,
  ): Promise<ExtensionRequestDialogResult["value"]> => {
    if (dialogSubscribers(host).length === 0) return null;
    const runtime = host.runtime();
    const running = runtime?.running;
    // a command (or an input hook) has no running turn yet: its pending start's signal stands in
    const signals = [
      running?.controller.signal,
      runtime?.pendingStart?.controller.signal,
      opts?.signal,
    ].filter((s): s is AbortSignal => s !== undefined);
    if (opts?.timeout !== undefined && opts.timeout > 0) signals.push(AbortSignal.timeout(opts.timeout));
    const signal = signals.length > 0 ? AbortSignal.any(signals) : new AbortController().signal;
    const params = { threadId, turnId: running?.live.id ?? null, ...dialog };
    const answer = await runAsHost(() => host.dialogs.ask(params, signal));
    if (answer.kind === "cancelled") return null;
    return (answer.raw as ExtensionRequestDialogResult | undefined)?.value ?? null;
  };
  const display = (
    notification: DisplayNotification | Extract<ServerNotification, { method: "extension/notify" }>,
  ): void => {
    if (notification.method !== "extension/notify") shown.record(notification);
    const to = dialogSubscribers(host);
    // the emit is the host's work: an in-process client drawing the terminal must not count as the extension writing to stdout
    if (to.length > 0) runAsHost(() => host.emit(to, notification));
  };

  // pi's component calls: live objects, handed to the subscribers drawing them in this process
  const surfaces = (): LiveComponentSurface[] => {
    const port = host.port();
    return dialogSubscribers(host)
      .map((id) => port?.componentSurface?.(id))
      .filter((surface): surface is LiveComponentSurface => surface !== undefined);
  };
  const warned = new Set<string>();
  const inert = (call: string): void => {
    if (warned.has(call)) return;
    warned.add(call);
    host.runtime()?.warn({
      source: "extension",
      message: `${call} draws a terminal component, which only the terminal agent shows; ignored here`,
    });
  };
  const toSurfaces = (
    call: string,
    show: (surface: LiveComponentSurface) => void,
    clearing: boolean,
  ): void => {
    const found = surfaces();
    if (found.length === 0 && !clearing) inert(call);
    for (const surface of found) runAsHost(() => show(surface));
  };
  // message renderers are registered at load, before the terminal subscribes: kept and replayed
  const renderers = new Map<string, ComponentFactory>();
  const components = {
    registerMessageRenderer(customType: string, renderer: unknown) {
      if (typeof renderer !== "function") return;
      renderers.set(customType, renderer as ComponentFactory);
      for (const surface of surfaces())
        runAsHost(() => surface.setMessageRenderer(threadId, customType, renderer as ComponentFactory));
    },
    setFooter(factory: ComponentFactory | undefined) {
      toSurfaces("ctx.ui.setFooter", (s) => s.setFooter(threadId, factory), factory === undefined);
    },
    setHeader(factory: ComponentFactory | undefined) {
      toSurfaces("ctx.ui.setHeader", (s) => s.setHeader(threadId, factory), factory === undefined);
    },
    async custom(factory: ComponentFactory, options: CustomComponentOptions = {}) {
      // one client shows it (the most recent subscriber); nobody: it resolves at once, as in pi without a UI
      const surface = surfaces().at(-1);
      if (!surface) {
        inert("ctx.ui.custom");
        return undefined;
      }
      return runAsHost(() => surface.custom(threadId, factory, options));
    },
  };
  const replayTo = (connectionId: string): void => {
    const port = host.port();
    if (port?.showsExtensionDialogs?.(connectionId) !== true) return;
    const surface = port.componentSurface?.(connectionId);
    runAsHost(() => {
      for (const notification of shown.current()) host.emit([connectionId], notification);
      for (const [customType, renderer] of renderers)
        surface?.setMessageRenderer(threadId, customType, renderer);
    });
  };
  const ui: ExtensionUIContext = {
    ...createNoUI(),
    ...(components as unknown as Partial<ExtensionUIContext>),
    async select(title, options, opts) {
      const value = await ask({ kind: "select", title, options }, opts);
      // an answer that is not one of the choices is no answer
      return typeof value === "string" && options.includes(value) ? value : undefined;
    },
    async confirm(title, message, opts) {
      return (await ask({ kind: "confirm", title, message }, opts)) === true;
    },
    async input(title, placeholder, opts) {
      const value = await ask(
        { kind: "input", title, ...(placeholder !== undefined ? { placeholder } : {}) },
        opts,
      );
      return typeof value === "string" ? value : undefined;
    },
    async editor(title, prefill) {
      const value = await ask(
        { kind: "editor", title, ...(prefill !== undefined ? { prefill } : {}) },
        undefined,
      );
      return typeof value === "string" ? value : undefined;
    },
    notify(message, type) {
      display({ method: "extension/notify", params: { threadId, message, type: type ?? "info" } });
    },
    setStatus(key, text) {
      display({ method: "extension/statusChanged", params: { threadId, key, text: text ?? null } });
    },
    setWidget(key, content, options) {
      // pi also takes a component factory: only a client in this process can draw one
      if (typeof content === "function") {
        const placement = options?.placement === "belowEditor" ? "belowEditor" : "aboveEditor";
        toSurfaces(
          "ctx.ui.setWidget with a component",
          (s) => s.setWidget(threadId, key, content as ComponentFactory, placement),
          false,
        );
        return;
      }
      if (content !== undefined && !Array.isArray(content)) return;
      if (content === undefined)
        for (const s of surfaces()) runAsHost(() => s.setWidget(threadId, key, undefined, "aboveEditor"));
      display({
        method: "extension/widgetChanged",
        params: {
          threadId,
          key,
          lines: content === undefined ? null : content.map(String),
          placement: options?.placement === "belowEditor" ? "belowEditor" : "aboveEditor",
        },
      });
    },
    setWorkingMessage(message) {
      display({ method: "extension/workingMessageChanged", params: { threadId, message: message ?? null } });
    },
    setWorkingIndicator(options) {
      const frames = Array.isArray(options?.frames) ? options.frames.slice(0, 64).map(String) : undefined;
      const intervalMs =
        typeof options?.intervalMs === "number" && Number.isFinite(options.intervalMs)
          ? Math.max(1, Math.round(options.intervalMs))
          : undefined;
      display({
        method: "extension/workingIndicatorChanged",
        params: {
          threadId,
          indicator:
            frames === undefined ? null : { frames, ...(intervalMs === undefined ? {} : { intervalMs }) },
        },
      });
    },
    setWorkingVisible(visible) {
      display({
        method: "extension/workingVisibleChanged",
        params: { threadId, visible: visible !== false },
      });
    },
    setTitle(title) {
      display({ method: "extension/titleChanged", params: { threadId, title: String(title) } });
    },
  };
  return { ui, replayTo };
}
