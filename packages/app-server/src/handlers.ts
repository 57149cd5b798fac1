/**
 * The method table of the server: each client request method mapped to the service
 * that answers it. Params arrive validated; results leave through the large-value
 * shaping of history pages.
 */
import {
  AppServerError,
  type ClientRequestMethod,
  type ClientRequestParams,
  type RequestId,
  type ServerDiagnosticsResult,
  type ServerNotification,
} from "@knightcode/app-server-protocol";
import type { Caller, ThreadManagerApi } from "@knightcode/thread-manager";
import { FollowedResult } from "./connection.ts";
import type { FileSearch } from "./file-search.ts";
import {
  ENVELOPE_RESERVE_BYTES,
  envelopeBytes,
  type LargeValues,
  RESPONSE_LIMIT_BYTES,
} from "./large-values.ts";
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
  /** How many `turn/queue/updated` notifications of a thread went out so far (to tell a stale snapshot). */
  queueUpdates?(threadId: string): number;
}

/** The request being answered, for handlers whose response size is bounded. */
export interface RequestInfo {
  id: RequestId;
  /** Sends a notification to the requesting connection only (opt-outs apply). */
  notify(notification: ServerNotification): void;
}

type Handler<M extends ClientRequestMethod> = (
  params: ClientRequestParams<M>,
  caller: Caller,
  ctx: HandlerContext,
  request: RequestInfo,
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

/** The refusal of a request whose id leaves no room for a valid response within 1 MiB. */
function idTooLarge(bytes: number): AppServerError {
  return new AppServerError(
    "invalidRequest",
    `the request id is too large: no valid response fits in ${RESPONSE_LIMIT_BYTES} bytes with it`,
    { limitBytes: RESPONSE_LIMIT_BYTES, envelopeBytes: bytes },
  );
}

/**
 * The envelope of a bounded response, or the refusal when the id alone leaves no room
 * for any result (checked before the manager does any work).
 */
function envelopeOf(request: RequestInfo | undefined): number {
  if (request === undefined) return ENVELOPE_RESERVE_BYTES;
  const bytes = envelopeBytes(request.id);
  // the smallest result of any bounded method, `{"threads":[]}`, takes 14 bytes
  if (bytes + 14 > RESPONSE_LIMIT_BYTES) throw idTooLarge(bytes);
  return bytes;
}

/** A lower bound of any `thread/resume` result for `threadId`: every field empty or zero. */
function smallestResumeBytes(threadId: string): number {
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextWindow: 0 };
  const queue = { steering: [], followUp: [] };
  return Buffer.byteLength(
    JSON.stringify({ thread: { id: threadId }, turns: [], queue, usage, warnings: [] }),
  );
}

/** Every request method except `initialize`, which the connection answers itself. */
export const HANDLERS: HandlerTable = {
  "thread/start": (p, c, ctx) => ctx.threads.startThread(p, c),
  "thread/resume": async (p, c, ctx, request) => {
    const envelope = envelopeOf(request);
    // resuming subscribes: an id that cannot fit even the smallest result is refused first
    if (request !== undefined && envelope + smallestResumeBytes(p.threadId) > RESPONSE_LIMIT_BYTES)
      throw idTooLarge(envelope);
    const resumed = await ctx.threads.resumeThread(p, c);
    const seen = ctx.queueUpdates?.(p.threadId);
    const fit = ctx.large.history(resumed, envelope, {
      source: "server",
      message:
        "Queued input texts are shortened in this response to keep it within 1 MiB; the full queue follows as turn/queue/updated",
    });
    if (!fit.fits) {
      // refused (the thread's own fields and warnings left no room): an error subscribes nobody
      await ctx.threads.unsubscribe({ threadId: p.threadId }, c).catch(() => undefined);
      throw idTooLarge(envelope);
    }
    const full = fit.shortenedQueue;
    if (full === undefined || request === undefined) return fit.result;
    return new FollowedResult(fit.result, () => {
      // a newer queue update already reached the client: it supersedes this snapshot
      if (ctx.queueUpdates?.(p.threadId) !== seen) return;
      request.notify({ method: "turn/queue/updated", params: { threadId: p.threadId, ...full } });
    });
  },
  "thread/fork": (p, c, ctx) => ctx.threads.forkThread(p, c),
  "thread/read": async (p, c, ctx, request) => {
    const envelope = envelopeOf(request);
    const fit = ctx.large.history(await ctx.threads.readThread(p, c), envelope);
    if (!fit.fits) throw idTooLarge(envelope);
    return fit.result;
  },
  "thread/list": async (p, c, ctx, request) => {
    const envelope = envelopeOf(request);
    const first = await ctx.threads.listThreads(p, c);
    const result = await ctx.large.list(first, envelope, (limit) =>
      ctx.threads.listThreads({ ...p, limit }, c),
    );
    if (result === undefined) throw idTooLarge(envelope);
    return result;
  },
  "thread/unsubscribe": (p, c, ctx) => ctx.threads.unsubscribe(p, c),
  "thread/archive": (p, c, ctx) => ctx.threads.archiveThread(p, c),
  "thread/unarchive": (p, c, ctx) => ctx.threads.unarchiveThread(p, c),
  "thread/delete": (p, c, ctx) => ctx.threads.deleteThread(p, c),
  "thread/settings/update": (p, c, ctx) => ctx.threads.updateSettings(p, c),
  "thread/shell/run": (p, c, ctx) => ctx.threads.runShell(p, c),
  "thread/diff": (p, c, ctx) => ctx.threads.diffThread(p, c),
  "worktree/merge": (p, c, ctx) => ctx.threads.mergeWorktree(p, c),
  "worktree/remove": (p, c, ctx) => ctx.threads.removeWorktree(p, c),
  "worktree/list": (p, c, ctx) => ctx.threads.listWorktrees(p, c),
  "thread/undo": (p, c, ctx) => ctx.threads.undoTurn(p, c),
  "thread/tree/read": (p, c, ctx) => ctx.threads.readTree(p, c),
  "thread/tree/navigate": (p, c, ctx) => ctx.threads.navigateTree(p, c),
  "model/list": (p, c, ctx) => ctx.threads.listModels(p, c),
  "command/list": (p, c, ctx) => ctx.threads.listCommands(p, c),
  "command/complete": (p, c, ctx) => ctx.threads.completeCommand(p, c),
  "thread/context/read": (p, c, ctx) => ctx.threads.readContext(p, c),
  "mcpServer/list": (p, c, ctx) => ctx.threads.listMcpServers(p, c),
  "mcpServer/resource/read": (p, c, ctx) => ctx.threads.readMcpResource(p, c),
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
