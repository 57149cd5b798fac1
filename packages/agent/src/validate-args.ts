/**
 * Validation of model-supplied tool arguments against the tool's TypeBox schema. Models
 * often send numbers as strings; those are coerced before checking, never after.
 */
import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";
import Value from "typebox/value";

type Validator = ReturnType<typeof Compile<TSchema>>;

// Compiling is far costlier than checking; a schema object is compiled once per process.
const compiled = new WeakMap<TSchema, Validator>();

function validatorFor(schema: TSchema): Validator {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = Compile(schema);
    compiled.set(schema, validator);
  }
  return validator;
}

/** Outcome of validating one call's arguments. */
export type ArgsValidation = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

/** Coerces and checks `args`; on failure the message lists every failing path for the model to fix. */
export function validateToolArgs(toolName: string, schema: TSchema, args: unknown): ArgsValidation {
  const validator = validatorFor(schema);
  const converted = Value.Convert(schema, structuredClone(args ?? {}));
  if (validator.Check(converted)) return { ok: true, args: converted as Record<string, unknown> };
  const lines = [...validator.Errors(converted)].map((error) => {
    const at = error.instancePath === "" ? "(root)" : error.instancePath;
    return `  - ${at}: ${error.message}`;
  });
  return {
    ok: false,
    message: `Invalid arguments for tool "${toolName}":\n${lines.join("\n")}\n\nReceived: ${JSON.stringify(args)}`,
  };
}
