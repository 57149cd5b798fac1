/**
 * pi's `ctx.newSession(options)` and `ctx.fork(entryId, options)` on a command context,
 * over the thread port's `replaceSession` (the server's `/new` and `/fork` paths). `setup`
 * gets a pi-shaped session manager of the new session: read it, append messages and
 * entries to it before its first turn. `withSession` is called afterwards with a command
 * context of the new thread's extensions, as pi binds it to the replacement session.
 */
import type { ImageContent, TextContent } from "@knightcode/ai";
import type { AgentMessage } from "@knightcode/session-store";
import type { ExtensionCommandContext } from "./api-types.ts";
import type { ExtensionThreadPort, ReplacementSession } from "./host-contract.ts";
import { labelOf } from "./pi/pi-surface.ts";

interface NewSessionOptions {
  parentSession?: string;
  setup?: (sessionManager: Record<string, unknown>) => Promise<void> | void;
  withSession?: (ctx: ExtensionCommandContext) => Promise<void> | void;
}

interface ForkOptions {
  position?: "before" | "at";
  withSession?: (ctx: ExtensionCommandContext) => Promise<void> | void;
}

/** The calls of pi's `SessionManager` a `setup` callback makes, over the new session. */
export function replacementSessionManager(session: ReplacementSession): Record<string, unknown> {
  const view = session.view;
  const id = (entry: { id: string }) => entry.id;
  return {
    getHeader: () => view.header,
    getSessionId: () => view.header.id,
    getSessionFile: () => view.path,
    getCwd: () => view.header.cwd,
    getEntries: () => view.entries,
    getBranch: () => view.branch(),
    getLeafId: () => view.leafId,
    getEntry: (entryId: string) => view.entries.find((e) => e.id === entryId),
    getSessionName: () => view.name,
    getLabel: (entryId: string) => labelOf(view.entries, entryId),
    appendMessage: (message: AgentMessage) => id(session.append({ type: "message", message })),
    appendCustomEntry: (customType: string, data?: unknown) =>
      id(session.append({ type: "custom", customType, ...(data !== undefined ? { data } : {}) })),
    appendCustomMessageEntry: (
      customType: string,
      content: string | (TextContent | ImageContent)[],
      display: boolean,
      details?: unknown,
    ) =>
      id(
        session.append({
          type: "custom_message",
          customType,
          content,
          display,
          ...(details !== undefined ? { details } : {}),
        }),
      ),
    appendSessionInfo: (name: string) => id(session.append({ type: "session_info", name })),
    appendLabelChange: (targetId: string, label: string | undefined) =>
      id(session.append({ type: "label", targetId, label })),
  };
}

/** `newSession` and `fork` for one command context; absent port support answers `cancelled`. */
export function sessionReplaceMethods(
  port: () => ExtensionThreadPort,
  asHost: <T>(run: () => T) => T,
): Record<"newSession" | "fork", unknown> {
  const after = async (
    answer: Awaited<ReturnType<NonNullable<ExtensionThreadPort["replaceSession"]>>>,
    withSession: ((ctx: ExtensionCommandContext) => Promise<void> | void) | undefined,
  ) => {
    const ctx = answer.replacement?.commandContext?.();
    if (!answer.cancelled && withSession && ctx) await withSession(ctx);
    return { cancelled: answer.cancelled };
  };
  return {
    newSession: async (options: NewSessionOptions = {}) => {
      const replace = port().replaceSession;
      if (!replace) return { cancelled: true };
      const setup = options.setup;
      const answer = await asHost(() =>
        replace(
          {
            kind: "new",
            ...(options.parentSession !== undefined ? { parentSession: options.parentSession } : {}),
          },
          setup ? async (session) => void (await setup(replacementSessionManager(session))) : undefined,
        ),
      );
      return after(answer, options.withSession);
    },
    fork: async (entryId: string, options: ForkOptions = {}) => {
      const replace = port().replaceSession;
      if (!replace) return { cancelled: true };
      if (typeof entryId !== "string" || entryId === "") throw new Error("fork() needs an entry ID");
      const answer = await asHost(() =>
        replace({ kind: "fork", entryId, position: options.position ?? "before" }),
      );
      return after(answer, options.withSession);
    },
  };
}
