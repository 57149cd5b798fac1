/**
 * Checks agent messages against the JSON schema shipped in the ACP SDK: a request or
 * notification by its method's params definition, a response by the definition of the
 * method it answers (looked up from what the client sent), an error by `Error`.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";

const require = createRequire(import.meta.url);
const schemaPath = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.json");
const schema = JSON.parse(readFileSync(schemaPath, "utf8")) as {
  $defs: Record<string, { "x-side"?: string; "x-method"?: string }>;
};

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schema, "acp");

/** Definition names by role: `x-side` says who handles the method, `x-method` which one. */
function definitionsBy(
  side: "agent" | "client" | "protocol",
  suffix: "Request" | "Response" | "Notification",
) {
  const found = new Map<string, string>();
  for (const [name, def] of Object.entries(schema.$defs)) {
    if (def["x-side"] === side && def["x-method"] !== undefined && name.endsWith(suffix)) {
      found.set(def["x-method"], name);
    }
  }
  return found;
}

const agentResponses = definitionsBy("agent", "Response");
const clientRequests = definitionsBy("client", "Request");
/** Notifications the client handles, and the protocol's own (`$/cancel_request`), which either side sends. */
const clientNotifications = new Map([
  ...definitionsBy("client", "Notification"),
  ...definitionsBy("protocol", "Notification"),
]);

const compiled = new Map<string, ValidateFunction>();
function validator(definition: string): ValidateFunction {
  let validate = compiled.get(definition);
  if (validate === undefined) {
    validate = ajv.getSchema(`acp#/$defs/${definition}`);
    if (validate === undefined) throw new Error(`the ACP schema has no definition ${definition}`);
    compiled.set(definition, validate);
  }
  return validate;
}

/** The problems of one message the agent sent; empty when it is valid. */
export function agentMessageProblems(
  message: Record<string, unknown>,
  requestMethodOf: (id: unknown) => string | undefined,
): string[] {
  if (message.jsonrpc !== "2.0") return [`not JSON-RPC 2.0: ${JSON.stringify(message).slice(0, 200)}`];
  let definition: string | undefined;
  let value: unknown;
  if (typeof message.method === "string") {
    definition =
      "id" in message ? clientRequests.get(message.method) : clientNotifications.get(message.method);
    if (definition === undefined) return [`the agent sent an unknown method ${message.method}`];
    value = message.params;
  } else if ("error" in message) {
    definition = "Error";
    value = message.error;
  } else {
    const method = requestMethodOf(message.id);
    if (method === undefined) return [`a response to an id the client never used: ${String(message.id)}`];
    definition = agentResponses.get(method);
    if (definition === undefined) return [`no response definition for ${method}`];
    value = message.result;
  }
  const validate = validator(definition);
  if (validate(value)) return [];
  return [
    `${definition}: ${ajv.errorsText(validate.errors).slice(0, 600)} in ${JSON.stringify(message).slice(0, 400)}`,
  ];
}
