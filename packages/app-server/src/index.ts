/** @knightcode/app-server: the JSON-lines app server, its transports and the in-process client. */
// first, so that under Node the import fails with a clear sentence before anything else loads
import "./require-bun.ts";

export { type AccountSources, createAccountPort } from "./account-port.ts";
export { createConfigPort } from "./config-port.ts";
export { Connection, FollowedResult, toAppServerError } from "./connection.ts";
export {
  createFileSearch,
  type FileSearch,
  FileSearchError,
  type FileSearchOptions,
  type FileSearchRequest,
  type FileSearchResult,
} from "./file-search.ts";
export { type FuzzyMatch, fuzzyMatch, normalizeQuery, rankPaths } from "./fuzzy-match.ts";
export {
  createIdleCollector,
  IDLE_COLLECT_MS,
  type IdleCollector,
  type IdleCollectorOptions,
} from "./idle-collector.ts";
export {
  createInProcessClient,
  type InProcessClient,
  type InProcessClientOptions,
} from "./in-process-client.ts";
export {
  ENVELOPE_RESERVE_BYTES,
  envelopeBytes,
  type HistoryFit,
  INLINE_LIMIT_BYTES,
  jsonStringPrefix,
  LargeValues,
  RESPONSE_LIMIT_BYTES,
  responseLineBytes,
} from "./large-values.ts";
export { createLazyThreadManager } from "./lazy-thread-manager.ts";
export {
  attachUrl,
  type ListenAddress,
  ListenAddressError,
  parseListenAddress,
} from "./listen/listen-address.ts";
export { TokenFileError } from "./listen/listener-token.ts";
export {
  checkListenConfig,
  ListenConfigError,
  type ListeningInfo,
  type ServeListenerOptions,
  serveListener,
} from "./listen/serve-listener.ts";
export { UnixListenError } from "./listen/unix-listener.ts";
export {
  DEFAULT_MAX_CONNECTIONS,
  MAX_MISSED_PONGS,
  PING_INTERVAL_MS,
  type StaticAssets,
  startWebSocketListener,
  type WebSocketListener,
  type WebSocketListenerOptions,
} from "./listen/websocket-listener.ts";
export { WebSocketServerTransport } from "./listen/websocket-server-transport.ts";
export {
  createPayloadSpool,
  PAYLOAD_CHUNK_BYTES,
  PAYLOAD_TTL_MS,
  type PayloadChunk,
  PayloadReadError,
  type PayloadRefValue,
  type PayloadSpool,
  type PayloadSpoolOptions,
} from "./payload-spool.ts";
export type { AccountPort, ConfigPort } from "./ports.ts";
export { HARD_EXIT_MS, keepConsoleOffStdout, type ServeStdioOptions, serveStdio } from "./serve-stdio.ts";
export {
  type AppServer,
  type AppServerOptions,
  type ConnectOptions,
  createAppServer,
  SHUTDOWN_ANSWER_MS,
} from "./server.ts";
export {
  type ByteSink,
  type ByteSource,
  LineError,
  MAX_PENDING_OUTPUT_BYTES,
  OutputOverflowError,
  StdioServerTransport,
  type StdioServerTransportOptions,
} from "./stdio-transport.ts";
