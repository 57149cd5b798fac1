/**
 * App-server errors as ACP JSON-RPC errors. Parameter errors keep the server's message
 * and data; a missing model or refused credentials become the ACP authentication error
 * with a message naming what to set, since KnightCode has no interactive login here.
 */
import { RequestError } from "@agentclientprotocol/sdk";
import { AppServerError, type TurnError } from "@knightcode/app-server-protocol";

/** What to tell a user whose provider has no usable credentials. */
export const CREDENTIALS_HINT =
  "Set the provider's API key in the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY), " +
  "in auth.json of the agent directory (~/.knightcode/agent, or KNIGHTCODE_CODING_AGENT_DIR), " +
  "or as apiKey of a provider in its models.json";

/** The ACP error for a session ID this process does not know. */
export function sessionNotFound(sessionId: string): RequestError {
  return RequestError.sessionNotFound(sessionId);
}

/** The ACP error for a failed turn: its `kind` (and message) in `data`. */
export function turnFailed(error: TurnError): RequestError {
  if (error.kind === "auth") {
    return new RequestError(-32000, `Authentication required: ${error.message}. ${CREDENTIALS_HINT}`, {
      kind: error.kind,
      message: error.message,
    });
  }
  return new RequestError(-32603, `Turn failed: ${error.message}`, {
    kind: error.kind,
    message: error.message,
  });
}

/** Maps anything a client request threw onto the ACP error the editor should see. */
export function toRequestError(error: unknown, sessionId?: string): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof AppServerError) {
    const data = error.data as { reason?: unknown } | undefined;
    switch (error.code) {
      case "invalidParams":
        if (data?.reason === "noModel") {
          return new RequestError(-32000, `Authentication required: no usable model. ${CREDENTIALS_HINT}`, {
            code: error.code,
            reason: "noModel",
          });
        }
        return RequestError.invalidParams(error.data, error.message);
      case "threadNotFound":
        return sessionId === undefined ? RequestError.resourceNotFound() : sessionNotFound(sessionId);
      default:
        return new RequestError(-32603, error.message, {
          code: error.code,
          ...(error.data === undefined ? {} : { data: error.data }),
        });
    }
  }
  return RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
}
