/** JSON-RPC 2.0 shapes without the `"jsonrpc"` field. */
import type { WireError } from "./errors.ts";

export type RequestId = string | number;

export interface RequestMessage {
  id: RequestId;
  method: string;
  params?: unknown;
}

export interface NotificationMessage {
  method: string;
  params?: unknown;
  /** The notification's place in its thread's stream (notifications about a loaded thread only). */
  seq?: number;
}

export interface SuccessResponse {
  id: RequestId;
  result: unknown;
}

/** `id` is null when the request's id could not be read (for example, unparseable JSON). */
export interface ErrorResponse {
  id: RequestId | null;
  error: WireError;
}

export type ResponseMessage = SuccessResponse | ErrorResponse;
export type Message = RequestMessage | NotificationMessage | ResponseMessage;

/** Sorts a parsed JSON value into one of the message kinds, or null when it is none of them. */
export function classifyMessage(
  value: unknown,
):
  | { kind: "request"; message: RequestMessage }
  | { kind: "notification"; message: NotificationMessage }
  | { kind: "response"; message: ResponseMessage }
  | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const hasId =
    typeof record.id === "string" || (typeof record.id === "number" && Number.isFinite(record.id));
  if (typeof record.method === "string") {
    if (hasId) return { kind: "request", message: record as unknown as RequestMessage };
    return "id" in record
      ? null
      : { kind: "notification", message: record as unknown as NotificationMessage };
  }
  if ((hasId || record.id === null) && ("result" in record || isWireError(record.error))) {
    return { kind: "response", message: record as unknown as ResponseMessage };
  }
  return null;
}

function isWireError(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const error = value as Record<string, unknown>;
  return typeof error.code === "string" && typeof error.message === "string";
}
