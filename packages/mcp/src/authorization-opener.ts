/**
 * How an OAuth sign-in reaches the user. Kept apart from oauth-flow.ts so the public
 * declarations that name it (the hub's and a connection's options) do not import the MCP
 * SDK's auth types, whose transport declarations need the DOM's HeadersInit: a consumer
 * with `lib: ["ESNext"]` and `skipLibCheck: false` could not type-check them.
 */

/** Opens an authorization URL for the user (a browser); the flow waits for the redirect. */
export type AuthorizationOpener = (url: URL, server: string) => void | Promise<void>;
