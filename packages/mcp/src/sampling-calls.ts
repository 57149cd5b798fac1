/**
 * The tool calls of one connection that can answer the server's sampling requests, and
 * the answer to one. A shared server gets no routing on the wire, so the newest call in
 * flight answers: the one the request came from whenever a single call is running. With
 * none in flight the request is refused, so a server cannot spend tokens unprompted.
 */
import type { CreateMessageRequest, CreateMessageResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  createMessageResultOf,
  type McpSampler,
  SamplingDeclinedError,
  samplingRequestOf,
} from "./sampling.ts";

/**
 * The SDK's error class, which the caller takes from the loaded SDK. Named by the types
 * module alone, not `McpSdk`: this class is in the package's public declarations, and the
 * SDK's client declarations that `McpSdk` names need the DOM's HeadersInit.
 */
type SdkErrors = { McpError: typeof McpError };

/** MCP's error code for a request the user rejected (sampling, elicitation). */
const USER_REJECTED = -1;
/** JSON-RPC's invalid request: a sampling request with no tool call of ours to answer it. */
const INVALID_REQUEST = -32600;

/** A tool call in flight that can answer the server's sampling requests. */
export interface SamplingCall {
  toolCallId: string;
  sample: McpSampler;
}

/** The calls in flight, newest last. */
export class SamplingCalls {
  readonly #calls: SamplingCall[] = [];

  /** Runs `fn` with `call` able to answer sampling meanwhile. */
  async during<T>(call: SamplingCall | undefined, fn: () => Promise<T>): Promise<T> {
    if (call === undefined) return fn();
    this.#calls.push(call);
    try {
      return await fn();
    } finally {
      this.#calls.splice(this.#calls.indexOf(call), 1);
    }
  }

  /** Answers one `sampling/createMessage`; a decline becomes MCP's user-rejection error. */
  async answer(
    sdk: SdkErrors,
    server: string,
    params: CreateMessageRequest["params"],
    signal: AbortSignal,
  ): Promise<CreateMessageResult> {
    const call = this.#calls.at(-1);
    if (call === undefined) {
      throw new sdk.McpError(
        INVALID_REQUEST,
        "KnightCode answers sampling requests only while one of this server's tools is running",
      );
    }
    try {
      return createMessageResultOf(
        await call.sample(samplingRequestOf(server, call.toolCallId, params), signal),
      );
    } catch (error) {
      if (error instanceof SamplingDeclinedError) throw new sdk.McpError(USER_REJECTED, error.message);
      throw error;
    }
  }
}
