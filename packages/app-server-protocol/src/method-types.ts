/** Types derived from the method tables; type-only, so importing them loads no schema. */
import type { Static } from "typebox";
import type {
  ClientRequestMethod,
  EXTENSION_DISPLAY_METHODS,
  ServerNotificationMethod,
  ServerRequestMethod,
} from "./method-names.ts";
import type { CLIENT_REQUESTS, SERVER_NOTIFICATIONS, SERVER_REQUESTS } from "./method-table.ts";

export type ClientRequestParams<M extends ClientRequestMethod> = Static<
  (typeof CLIENT_REQUESTS)[M]["params"]
>;
export type ClientRequestResult<M extends ClientRequestMethod> = Static<
  (typeof CLIENT_REQUESTS)[M]["result"]
>;
export type ServerNotificationParams<M extends ServerNotificationMethod> = Static<
  (typeof SERVER_NOTIFICATIONS)[M]
>;

/** Any server notification as a `{method, params}` pair, discriminated by method. */
export type ServerNotification = {
  [M in ServerNotificationMethod]: { method: M; params: ServerNotificationParams<M> };
}[ServerNotificationMethod];

/** One of the {@link EXTENSION_DISPLAY_METHODS} notifications. */
export type ExtensionDisplayNotification = Extract<
  ServerNotification,
  { method: (typeof EXTENSION_DISPLAY_METHODS)[number] }
>;

export type ServerRequestParams<M extends ServerRequestMethod> = Static<
  (typeof SERVER_REQUESTS)[M]["params"]
>;
export type ServerRequestResult<M extends ServerRequestMethod> = Static<
  (typeof SERVER_REQUESTS)[M]["result"]
>;
