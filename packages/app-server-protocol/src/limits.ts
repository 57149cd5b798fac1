/** The protocol's numeric limits, shared by schemas and runtime code. Byte limits count UTF-8 bytes. */

/** Most notification names one connection may opt out of. */
export const MAX_OPT_OUT_NOTIFICATIONS = 256;

/** Bytes of payload per `payload/read` chunk, before base64 encoding. */
export const PAYLOAD_CHUNK_BYTES = 48 * 1024;

/** Longest decline message a client may send, in characters. */
export const MAX_DECLINE_MESSAGE_CHARS = 4000;

/** Largest `limit` of one `thread/list` page. */
export const THREAD_LIST_MAX_LIMIT = 500;

/** Largest stdin line the server accepts: 64 MiB. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Unread output after which the server aborts a connection: 64 MiB. */
export const MAX_PENDING_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Largest history or list response, envelope included: 1 MiB. */
export const MAX_LISTING_RESPONSE_BYTES = 1024 * 1024;

/** Largest turn, item, tool input or output sent inline; larger values become payload references. */
export const MAX_INLINE_VALUE_BYTES = 64 * 1024;

/**
 * Room assumed for a response's `{"id":…,"result":…}` envelope when sizing history and list
 * pages before the real request id is known; the server then bounds each line exactly.
 */
export const RESPONSE_ENVELOPE_RESERVE_BYTES = 8 * 1024;

/** Turns per history page. */
export const HISTORY_PAGE_TURNS = 50;

/** Longest `thread/shell/run` command text. */
export const MAX_SHELL_COMMAND_CHARS = 65_536;
