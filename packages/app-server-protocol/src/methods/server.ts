/** Server-level methods: payloads, file search, diagnostics, accounts. */
import Type, { type Static } from "typebox";
import { AccountStatus, FileMatch, PathString } from "../shapes.ts";

export const PayloadReadParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128 }),
  /** Byte offset into the payload. */
  offset: Type.Integer({ minimum: 0 }),
});
export type PayloadReadParams = Static<typeof PayloadReadParams>;

export const PayloadReadResult = Type.Object({
  /** Base64 of at most 48 KiB of payload bytes. */
  data: Type.String(),
  /** The next byte offset, when more remains. */
  nextOffset: Type.Optional(Type.Integer({ minimum: 0 })),
  eof: Type.Boolean(),
});
export type PayloadReadResult = Static<typeof PayloadReadResult>;

export const FileSearchParams = Type.Object({
  cwd: PathString,
  query: Type.String({ minLength: 1, maxLength: 256 }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  searchId: Type.Optional(Type.String({ maxLength: 128 })),
});
export type FileSearchParams = Static<typeof FileSearchParams>;

export const FileSearchResult = Type.Object({ files: Type.Array(FileMatch), truncated: Type.Boolean() });
export type FileSearchResult = Static<typeof FileSearchResult>;

export const ServerDiagnosticsParams = Type.Object({});
export type ServerDiagnosticsParams = Static<typeof ServerDiagnosticsParams>;

export const ServerDiagnosticsResult = Type.Object({
  rssBytes: Type.Integer({ minimum: 0 }),
  heapBytes: Type.Integer({ minimum: 0 }),
  loadedThreads: Type.Integer({ minimum: 0 }),
  loadingThreads: Type.Integer({ minimum: 0 }),
  payloadFiles: Type.Integer({ minimum: 0 }),
  payloadBytes: Type.Integer({ minimum: 0 }),
  inactiveFactories: Type.Integer({ minimum: 0 }),
  uptimeMs: Type.Number({ minimum: 0 }),
  /** Cumulative transcript opens by listings, including parent-header lookups. */
  listingFilesOpened: Type.Integer({ minimum: 0 }),
  /** Cumulative transcript bytes scanned by listings. */
  listingBytesScanned: Type.Integer({ minimum: 0 }),
});
export type ServerDiagnosticsResult = Static<typeof ServerDiagnosticsResult>;

export const AccountReadParams = Type.Object({});
export type AccountReadParams = Static<typeof AccountReadParams>;

export const AccountReadResult = Type.Object({
  accounts: Type.Array(AccountStatus),
  /** The file `account/login/apiKey` saves keys in, for clients to name it. */
  authFile: Type.Optional(Type.String()),
});
export type AccountReadResult = Static<typeof AccountReadResult>;

export const AccountLoginApiKeyParams = Type.Object({
  provider: Type.String({ minLength: 1 }),
  apiKey: Type.String({ minLength: 1, maxLength: 8192 }),
});
export type AccountLoginApiKeyParams = Static<typeof AccountLoginApiKeyParams>;

export const AccountLoginApiKeyResult = Type.Object({});
export type AccountLoginApiKeyResult = Static<typeof AccountLoginApiKeyResult>;

export const AccountLogoutParams = Type.Object({ provider: Type.String({ minLength: 1 }) });
export type AccountLogoutParams = Static<typeof AccountLogoutParams>;

export const AccountLogoutResult = Type.Object({});
export type AccountLogoutResult = Static<typeof AccountLogoutResult>;
