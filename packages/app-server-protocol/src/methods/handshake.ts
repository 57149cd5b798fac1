/** `initialize` and `initialized`. */
import Type, { type Static } from "typebox";
import { MAX_OPT_OUT_NOTIFICATIONS } from "../limits.ts";

export const InitializeParams = Type.Object({
  clientInfo: Type.Object({ name: Type.String({ minLength: 1 }), version: Type.Optional(Type.String()) }),
  capabilities: Type.Optional(
    Type.Object({
      /** Notification methods this connection does not want; unknown names are tolerated. */
      optOutNotifications: Type.Optional(Type.Array(Type.String(), { maxItems: MAX_OPT_OUT_NOTIFICATIONS })),
      /**
       * The client shows extension dialogs (`extension/requestDialog`) and display calls
       * (`extension/notify`, `extension/statusChanged`, `extension/widgetChanged`,
       * `extension/workingMessageChanged`, `extension/workingIndicatorChanged`,
       * `extension/workingVisibleChanged`, `extension/titleChanged`). Absent or false: it gets none.
       */
      extensionDialogs: Type.Optional(Type.Boolean()),
    }),
  ),
});
export type InitializeParams = Static<typeof InitializeParams>;

export const InitializeResult = Type.Object({
  serverInfo: Type.Object({ name: Type.String(), version: Type.String() }),
  platform: Type.Object({
    os: Type.Union([Type.Literal("win32"), Type.Literal("darwin"), Type.Literal("linux")]),
    arch: Type.String(),
    homeDir: Type.String(),
    /**
     * The server process's working directory: where a client that shares no filesystem
     * with the server (`knightcode --remote`) opens its threads.
     */
    cwd: Type.Optional(Type.String()),
  }),
});
export type InitializeResult = Static<typeof InitializeResult>;

/** Sent by the client once it has the `initialize` result. */
export const InitializedNotification = Type.Object({});
export type InitializedNotification = Static<typeof InitializedNotification>;
