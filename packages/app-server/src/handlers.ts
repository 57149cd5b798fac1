/**
 * The method table of the server: each client request method mapped to the service
 * that answers it. Params arrive validated; results leave through the large-value
 * shaping of history pages.
 */
import {
  AppServerError,
  type ClientRequestMethod,
  type ClientRequestParams,
  type ServerDiagnosticsResult,
  type ServerNotification,
} from "@knightcode/app-server-protocol";
import type { Caller, ThreadManagerApi } from "@knightcode/thread-manager";
import type { FileSearch } from "./file-search.ts";
import type { LargeValues } from "./large-values.ts";
import { PayloadReadError, type PayloadSpool } from "./payload-spool.ts";
import type { AccountPort, ConfigPort } from "./ports.ts";

/** Everything the handlers reach. */
export interface HandlerContext {
  threads: ThreadManagerApi;
  config: ConfigPort | undefined;
  accounts: AccountPort | undefined;
  fileSearch: FileSearch;
  spool: PayloadSpool;
  large: LargeValues;
  diagnostics(): ServerDiagnosticsResult;
  /** Sends a notification to every initialized connection. */
  broadcast(notification: ServerNotification): void;
}

type Handler<M extends ClientRequestMethod> = (
  params: ClientRequestParams<M>,
  caller: Caller,
  ctx: HandlerContext,
) => Promise<unknown>;

type HandlerTable = { [M in Exclude<ClientRequestMethod, "initialize">]: Handler<M> };

function needConfig(ctx: HandlerContext): ConfigPort {
  if (ctx.config === undefined)
    throw new AppServerError("internal", "settings are not available in this server");
  return ctx.config;
}

function needAccounts(ctx: HandlerContext): AccountPort {
  if (ctx.accounts === undefined)
    throw new AppServerError("internal", "accounts are not available in this server");
  return ctx.accounts;
}

/** Every initialized connection gets account updates. */
async function announceAccounts(ctx: HandlerContext): Promise<void> {
  const { accounts } = await needAccounts(ctx).read();
  ctx.broadcast({ method: "account/updated", params: { accounts } });
}

/** Every request method except `initialize`, which the connection answers itself. */
export const HANDLERS: HandlerTable = {
  "thread/start": (p, c, ctx) => ctx.threads.startThread(p, c),
  "thread/resume": async (p, c, ctx) => ctx.large.page(await ctx.threads.resumeThread(p, c)),
  "thread/fork": (p, c, ctx) => ctx.threads.forkThread(p, c),
  "thread/read": async (p, c, ctx) => ctx.large.page(await ctx.threads.readThread(p, c)),
  "thread/list": async (p, c, ctx) => {
    const result = await ctx.threads.listThreads(p, c);
    const fit = ctx.large.listFit(result.threads);
    return fit === undefined ? result : ctx.threads.listThreads({ ...p, limit: fit }, c);
  },
  "thread/unsubscribe": (p, c, ctx) => ctx.threads.unsubscribe(p, c),
  "thread/archive": (p, c, ctx) => ctx.threads.archiveThread(p, c),
  "thread/unarchive": (p, c, ctx) => ctx.threads.unarchiveThread(p, c),
  "thread/delete": (p, c, ctx) => ctx.threads.deleteThread(p, c),
  "thread/settings/update": (p, c, ctx) => ctx.threads.updateSettings(p, c),
  "model/list": (p, c, ctx) => ctx.threads.listModels(p, c),
  "command/list": (p, c, ctx) => ctx.threads.listCommands(p, c),
  "turn/start": (p, c, ctx) => ctx.threads.startTurn(p, c),
  "turn/steer": (p, c, ctx) => ctx.threads.steerTurn(p, c),
  "turn/interrupt": (p, c, ctx) => ctx.threads.interruptTurn(p, c),
  "turn/queue/add": (p, c, ctx) => ctx.threads.addToQueue(p, c),
  "turn/queue/remove": (p, c, ctx) => ctx.threads.removeFromQueue(p, c),
  "payload/read": async (p, _c, ctx) => {
    try {
      return ctx.spool.read(p.id, p.offset);
    } catch (error) {
      if (error instanceof PayloadReadError) {
        throw new AppServerError(
          error.reason === "notFound" ? "payloadNotFound" : "invalidParams",
          error.message,
        );
      }
      throw error;
    }
  },
  "config/read": (p, _c, ctx) => needConfig(ctx).read(p),
  "config/write": (p, _c, ctx) => needConfig(ctx).write(p),
  "project/trust/read": (p, _c, ctx) => needConfig(ctx).readTrust(p),
  "project/trust/set": async (p, _c, ctx) => {
    await needConfig(ctx).setTrust(p);
    return {};
  },
  "file/search": (p, c, ctx) => ctx.fileSearch.search({ ...p, owner: c.connectionId }),
  "server/diagnostics": async (_p, _c, ctx) => ctx.diagnostics(),
  "account/read": (_p, _c, ctx) => needAccounts(ctx).read(),
  "account/login/apiKey": async (p, _c, ctx) => {
    await needAccounts(ctx).loginApiKey(p);
    await announceAccounts(ctx);
    return {};
  },
  "account/logout": async (p, _c, ctx) => {
    await needAccounts(ctx).logout(p);
    await announceAccounts(ctx);
    return {};
  },
};
