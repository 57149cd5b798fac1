/** JSON-RPC 2.0 shapes without the `"jsonrpc"` field. */
import Type, { type Static } from "typebox";
import { WireError } from "./errors.ts";

export const RequestId = Type.Union([Type.String(), Type.Number()]);
export type RequestId = Static<typeof RequestId>;

export const RequestMessage = Type.Object({
  id: RequestId,
  method: Type.String(),
  params: Type.Optional(Type.Unknown()),
});
export type RequestMessage = Static<typeof RequestMessage>;

export const NotificationMessage = Type.Object({
  method: Type.String(),
  params: Type.Optional(Type.Unknown()),
});
export type NotificationMessage = Static<typeof NotificationMessage>;

export const SuccessResponse = Type.Object({ id: RequestId, result: Type.Unknown() });
export type SuccessResponse = Static<typeof SuccessResponse>;

/** `id` is null when the request's id could not be read (for example, unparseable JSON). */
export const ErrorResponse = Type.Object({ id: Type.Union([RequestId, Type.Null()]), error: WireError });
export type ErrorResponse = Static<typeof ErrorResponse>;

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
    return hasId
      ? { kind: "request", message: record as RequestMessage }
      : "id" in record
        ? null
        : { kind: "notification", message: record as NotificationMessage };
  }
  if ((hasId || record.id === null) && ("result" in record || isWireError(record.error))) {
    return { kind: "response", message: record as ResponseMessage };
  }
  return null;
}

function isWireError(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const error = value as Record<string, unknown>;
  return typeof error.code === "string" && typeof error.message === "string";
}
