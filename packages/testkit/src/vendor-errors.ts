import type { MockError, MockWireFormat } from "./script.ts";

/** A scripted failure as it goes over the wire. */
export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface ErrorShape {
  status: number;
  anthropicType: string;
  anthropicMessage: string;
  openaiType: string;
  openaiCode: string | null;
  openaiMessage: (format: MockWireFormat) => string;
}

// Messages mirror what the vendors really send, because error classification keys on them.
const SHAPES: Record<MockError["kind"], ErrorShape> = {
  auth: {
    status: 401,
    anthropicType: "authentication_error",
    anthropicMessage: "invalid x-api-key",
    openaiType: "invalid_request_error",
    openaiCode: "invalid_api_key",
    openaiMessage: () =>
      "Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.",
  },
  rateLimit: {
    status: 429,
    anthropicType: "rate_limit_error",
    anthropicMessage:
      "This request would exceed the rate limit for your organization of 50,000 input tokens per minute.",
    openaiType: "tokens",
    openaiCode: "rate_limit_exceeded",
    openaiMessage: () =>
      "Rate limit reached for mock-model on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s.",
  },
  server: {
    status: 500,
    anthropicType: "api_error",
    anthropicMessage: "Internal server error",
    openaiType: "server_error",
    openaiCode: null,
    openaiMessage: () => "The server had an error while processing your request. Sorry about that!",
  },
  overloaded: {
    status: 529,
    anthropicType: "overloaded_error",
    anthropicMessage: "Overloaded",
    openaiType: "server_error",
    openaiCode: null,
    openaiMessage: () => "The engine is currently overloaded, please try again later.",
  },
  contextOverflow: {
    status: 400,
    anthropicType: "invalid_request_error",
    anthropicMessage: "prompt is too long: 208310 tokens > 200000 maximum",
    openaiType: "invalid_request_error",
    openaiCode: "context_length_exceeded",
    openaiMessage: (format) =>
      format === "responses"
        ? "Your input exceeds the context window of this model. Please adjust your input and try again."
        : "This model's maximum context length is 128000 tokens. However, your messages resulted in 135000 tokens. Please reduce the length of the messages.",
  },
  badRequest: {
    status: 400,
    anthropicType: "invalid_request_error",
    anthropicMessage: "messages.0.content: Field required",
    openaiType: "invalid_request_error",
    openaiCode: null,
    openaiMessage: () => "Invalid value for 'messages[0].content': expected a string or array.",
  },
};

/** The vendor's inner error object (`{type, message}` for Anthropic, `{message, type, param, code}` for OpenAI). */
export function vendorErrorObject(
  error: MockError,
  format: MockWireFormat | "unknown",
): Record<string, unknown> {
  const shape = SHAPES[error.kind];
  if (format === "anthropic-messages") {
    return { type: shape.anthropicType, message: error.message ?? shape.anthropicMessage };
  }
  return {
    message: error.message ?? shape.openaiMessage(format === "unknown" ? "chat-completions" : format),
    type: shape.openaiType,
    param: null,
    code: shape.openaiCode ?? shape.openaiType,
  };
}

/** Renders a scripted error with the vendor's status, headers and JSON error body. */
export function renderVendorError(error: MockError, format: MockWireFormat | "unknown"): RenderedError {
  const shape = SHAPES[error.kind];
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
  // OpenAI answers overload with 503; 529 is Anthropic's own status.
  const status = error.kind === "overloaded" && format !== "anthropic-messages" ? 503 : shape.status;
  if (format === "anthropic-messages") {
    headers["request-id"] = "req_mock";
    const body = {
      type: "error",
      error: { type: shape.anthropicType, message: error.message ?? shape.anthropicMessage },
      request_id: "req_mock",
    };
    return { status, headers, body: JSON.stringify(body) };
  }
  headers["x-request-id"] = "req_mock";
  const body = {
    error: {
      message: error.message ?? shape.openaiMessage(format === "unknown" ? "chat-completions" : format),
      type: shape.openaiType,
      param: null,
      code: shape.openaiCode,
    },
  };
  return { status, headers, body: JSON.stringify(body) };
}
