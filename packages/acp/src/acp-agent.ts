/**
 * The ACP agent: the SDK's agent app whose handlers translate ACP requests into
 * app-server requests on one in-process client. Sessions are threads; the server's
 * notifications are routed to the session of their thread.
 */
import {
  type AgentApp,
  type AgentConnection,
  agent,
  type ClientCapabilities,
  type InitializeResponse,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type SessionInfo,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import type { AppServerClient, Thread, Warning } from "@knightcode/app-server-protocol";
import { AcpSession, usageUpdate } from "./acp-session.ts";
import { sessionNotFound, toRequestError } from "./errors.ts";
import { replayUpdates } from "./history-replay.ts";
import {
  type ListedMcpServer,
  type McpServerRefusal,
  type McpTranslation,
  mcpServersNotRunning,
  translateMcpServers,
} from "./mcp-servers.ts";
import { isApprovalMode, modeState } from "./modes.ts";

/** Options for {@link createAcpAgent}. */
export interface AcpAgentOptions {
  /** An initialized desktop client of the app server. */
  server: AppServerClient;
  version: string;
  /** Diagnostics; stderr in the `knightcode acp` process. */
  log?(message: string): void;
}

/** Why an MCP server from the editor is not used; reported, never dropped silently. */
export const MCP_NOT_HONOURED =
  "KnightCode cannot connect MCP servers from ACP yet; this server was not started";

/** A thread's title and last activity as `session_info_update`. */
function sessionInfo(thread: Thread): SessionUpdate {
  return {
    sessionUpdate: "session_info_update",
    title: thread.name ?? thread.title ?? null,
    updatedAt: thread.updatedAt,
  };
}

/** What `initialize` advertises: only what is implemented. */
export function initializeResponse(version: string): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    },
    authMethods: [],
    agentInfo: { name: "knightcode", title: "KnightCode", version },
  };
}

/** Builds the agent app; connect it to an ACP stream. */
export function createAcpAgent(options: AcpAgentOptions): AgentApp {
  const { server } = options;
  const log = options.log ?? (() => {});
  const sessions = new Map<string, AcpSession>();
  const byThread = new Map<string, AcpSession>();
  let connection: AgentConnection | undefined;
  let clientCapabilities: ClientCapabilities | undefined;

  const editor = () => {
    if (connection === undefined) throw RequestError.internalError(undefined, "not connected");
    return connection.client;
  };
  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (session === undefined) throw sessionNotFound(sessionId);
    return session;
  };
  const open = (thread: Thread): AcpSession => {
    const previous = sessions.get(thread.id);
    if (previous !== undefined) byThread.delete(previous.threadId);
    const session = new AcpSession(thread.id, thread.cwd, thread.approvalMode, {
      server,
      editor: editor(),
      log,
    });
    sessions.set(session.id, session);
    byThread.set(session.threadId, session);
    return session;
  };

  /** Shows the editor what it should know about a session it opened; also on stderr. */
  const show = (session: AcpSession, warnings: readonly Warning[], notUsed: readonly McpServerRefusal[]) => {
    const lines = [
      ...notUsed.map((r) => `MCP server '${r.name}' not used: ${r.reason}.`),
      ...warnings.map((w) => `Warning (${w.source}${w.path ? `, ${w.path}` : ""}): ${w.message}`),
    ];
    for (const line of lines) log(`session ${session.id}: ${line}`);
    if (lines.length === 0) return;
    if (clientCapabilities?.session?.notices != null) {
      session.send(lines.map((title) => ({ sessionUpdate: "notice", severity: "warning", title })));
    } else {
      session.send({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: lines.join("\n") },
      });
    }
  };

  /** The editor's MCP servers that do not run in `threadId`: refused here, or not started by the server. */
  const mcpNotRunning = async (
    threadId: string,
    translation: McpTranslation,
  ): Promise<McpServerRefusal[]> => {
    const passed = Object.keys(translation.servers);
    if (passed.length === 0) return translation.refused;
    let listed: ListedMcpServer[] | undefined;
    try {
      listed = (await server.request("mcpServer/list", { threadId })).servers;
    } catch (error) {
      // a server that cannot list them does not run them
      log(`mcpServer/list: ${String(error)}`);
      listed = undefined;
    }
    return [...translation.refused, ...mcpServersNotRunning(passed, listed)];
  };
  const mcpMeta = (notUsed: readonly McpServerRefusal[]) =>
    notUsed.length === 0 ? {} : { _meta: { knightcode: { mcpServersNotUsed: [...notUsed] } } };

  /** After the response: the client knows the session only once it has its ID. */
  const afterResponse = (work: () => void) => setTimeout(work, 0);

  server.onNotification("thread/replaced", (p) => {
    const session = byThread.get(p.oldThreadId);
    if (session === undefined) return;
    byThread.delete(session.threadId);
    session.threadId = p.thread.id;
    byThread.set(session.threadId, session);
    session.send(sessionInfo(p.thread));
    void session.refreshCommands();
  });
  // also announced when a thread is renamed (`/name`)
  server.onNotification("thread/started", (p) => byThread.get(p.thread.id)?.send(sessionInfo(p.thread)));
  /** The session of a thread's notification, if one follows that thread. */
  const followerOf = (p: { threadId?: string }) =>
    typeof p.threadId === "string" ? byThread.get(p.threadId) : undefined;
  server.onNotification("turn/started", (p) => followerOf(p)?.turnStarted(p));
  server.onNotification("item/agentMessage/delta", (p) => followerOf(p)?.delta("agent_message_chunk", p));
  server.onNotification("item/reasoning/delta", (p) => followerOf(p)?.delta("agent_thought_chunk", p));
  server.onNotification("item/started", (p) => followerOf(p)?.itemStarted(p.item));
  server.onNotification("item/completed", (p) => followerOf(p)?.itemCompleted(p.item));
  server.onNotification("turn/completed", (p) => followerOf(p)?.turnCompleted(p));
  server.onNotification("thread/tokenUsage/updated", (p) => followerOf(p)?.usage(p));
  server.onNotification("warning", (p) => {
    const session = followerOf(p);
    // warnings after load (an extension failing later) go where the load's warnings went
    if (session !== undefined) show(session, [p], []);
  });
  server.onRequest("item/toolCall/requestApproval", (params, context) => {
    const session = byThread.get(params.threadId);
    return session === undefined ? { decision: "cancel" } : session.requestPermission(params, context.signal);
  });

  /** `thread/resume`; the editor's MCP list, when it gave one, replaces the thread's. */
  const resumeThread = async (sessionId: string, mcp: McpTranslation | undefined) =>
    server
      .request("thread/resume", {
        threadId: sessionId,
        ...(mcp === undefined ? {} : { mcpServers: mcp.servers }),
      })
      .catch((error: unknown) => {
        throw toRequestError(error, sessionId);
      });

  return agent({ name: "knightcode" })
    .onConnect((connected) => {
      connection = connected;
    })
    .onRequest(methods.agent.initialize, ({ params }) => {
      clientCapabilities = params.clientCapabilities;
      return initializeResponse(options.version);
    })
    .onRequest(methods.agent.session.new, async ({ params }) => {
      const mcp = translateMcpServers(params.mcpServers);
      const worktree = worktreeOption(params._meta);
      const started = await server
        .request("thread/start", {
          cwd: params.cwd,
          ...(Object.keys(mcp.servers).length === 0 ? {} : { mcpServers: mcp.servers }),
          ...(worktree === undefined ? {} : { worktree }),
        })
        .catch((error: unknown) => {
          throw toRequestError(error);
        });
      const session = open(started.thread);
      const notUsed = await mcpNotRunning(session.threadId, mcp);
      show(session, started.warnings, notUsed);
      afterResponse(() => void session.refreshCommands());
      return { sessionId: session.id, modes: modeState(session.mode), ...mcpMeta(notUsed) };
    })
    .onRequest(methods.agent.session.load, async ({ params }) => {
      const mcp = translateMcpServers(params.mcpServers);
      const resumed = await resumeThread(params.sessionId, mcp);
      const session = open(resumed.thread);
      if (params.cwd !== session.cwd) {
        // a thread keeps the directory it was made in; tools and paths stay relative to it
        log(`session ${session.id}: loaded in its own cwd ${session.cwd}, not the requested ${params.cwd}`);
      }
      const pages = [resumed.turns];
      for (let cursor = resumed.nextCursor; cursor !== undefined; ) {
        const page = await server.request("thread/read", { threadId: session.threadId, cursor });
        pages.unshift(page.turns);
        cursor = page.nextCursor;
      }
      const turns = await Promise.all(pages.flat().map((turn) => server.resolveTurn(turn)));
      session.send(replayUpdates(turns, session.cwd));
      session.send(usageUpdate(resumed.usage));
      const notUsed = await mcpNotRunning(session.threadId, mcp);
      show(session, resumed.warnings, notUsed);
      await session.flush();
      afterResponse(() => void session.refreshCommands());
      return { modes: modeState(session.mode), ...mcpMeta(notUsed) };
    })
    .onRequest(methods.agent.session.resume, async ({ params }) => {
      const mcp = params.mcpServers == null ? undefined : translateMcpServers(params.mcpServers);
      const resumed = await resumeThread(params.sessionId, mcp);
      const session = open(resumed.thread);
      const notUsed = mcp === undefined ? [] : await mcpNotRunning(session.threadId, mcp);
      show(session, resumed.warnings, notUsed);
      afterResponse(() => void session.refreshCommands());
      return { modes: modeState(session.mode), ...mcpMeta(notUsed) };
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      const listed = await server
        .request("thread/list", {
          ...(params.cwd == null ? {} : { cwd: params.cwd }),
          ...(params.cursor == null ? {} : { cursor: params.cursor }),
        })
        .catch((error: unknown) => {
          throw toRequestError(error);
        });
      const list: SessionInfo[] = listed.threads.map((thread) => ({
        sessionId: thread.id,
        cwd: thread.cwd,
        updatedAt: thread.updatedAt,
        ...((thread.name ?? thread.title) === undefined ? {} : { title: thread.name ?? thread.title }),
      }));
      return {
        sessions: list,
        ...(listed.nextCursor === undefined ? {} : { nextCursor: listed.nextCursor }),
      };
    })
    .onRequest(methods.agent.session.close, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      await session.close();
      sessions.delete(session.id);
      byThread.delete(session.threadId);
      return {};
    })
    .onRequest(methods.agent.session.setMode, async ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (!isApprovalMode(params.modeId)) {
        throw RequestError.invalidParams({ modeId: params.modeId }, `unknown mode '${params.modeId}'`);
      }
      const updated = await server
        .request("thread/settings/update", { threadId: session.threadId, approvalMode: params.modeId })
        .catch((error: unknown) => {
          throw toRequestError(error, session.id);
        });
      session.mode = updated.thread.approvalMode ?? params.modeId;
      session.send({ sessionUpdate: "current_mode_update", currentModeId: session.mode });
      await session.flush();
      return {};
    })
    .onRequest(methods.agent.session.prompt, ({ params }) =>
      sessionOf(params.sessionId).prompt(params.prompt),
    )
    .onNotification(methods.agent.session.cancel, async ({ params }) => {
      await sessions.get(params.sessionId)?.cancel();
    });
}

/**
 * `session/new`'s `_meta.knightcode.worktree`: `true` or `{name?, baseRef?}` starts the
 * session's thread in a server-owned git worktree of the repository containing `cwd`
 * (docs/worktrees.md); anything else is ignored.
 */
export function worktreeOption(meta: unknown): { name?: string; baseRef?: string } | undefined {
  const option = (meta as { knightcode?: { worktree?: unknown } } | null | undefined)?.knightcode?.worktree;
  if (option === true) return {};
  if (typeof option !== "object" || option === null) return undefined;
  const { name, baseRef } = option as Record<string, unknown>;
  return {
    ...(typeof name === "string" ? { name } : {}),
    ...(typeof baseRef === "string" ? { baseRef } : {}),
  };
}
