/**
 * Validation of model-supplied tool arguments against the tool's JSON Schema (a TypeBox
 * schema or a plain object). Models often send numbers as strings; those are coerced
 * before checking, never after.
 *
 * TypeBox's compiler and value modules load on the first validation, not with the agent
 * (`typebox-runtime.ts` says from where): from source they are hundreds of small files,
 * which every start would otherwise parse before its first thread was ready
 * (docs/cold-start.md).
 */
import type { TSchema } from "typebox";
import type * as TypeBoxCompile from "typebox/compile";
import { loadTypeBoxRuntime, type TypeBoxRuntime } from "./typebox-runtime.ts";

type Validator = ReturnType<typeof TypeBoxCompile.Compile<TSchema>>;

let runtime: TypeBoxRuntime | undefined;

function typebox(): TypeBoxRuntime {
  runtime ??= loadTypeBoxRuntime();
  return runtime;
}

// Compiling is far costlier than checking; a schema object is compiled once per process.
const compiled = new WeakMap<TSchema, Validator>();

/** The schema's compiled validator, made once per schema object; throws when it does not compile. */
export function compileToolSchema(schema: TSchema): Validator {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = typebox().Compile(schema);
    compiled.set(schema, validator);
  }
  return validator;
}

/** Outcome of validating one call's arguments. */
export type ArgsValidation = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

/** Coerces and checks `args`; on failure the message lists every failing path for the model to fix. */
export function validateToolArgs(toolName: string, schema: TSchema, args: unknown): ArgsValidation {
  const validator = compileToolSchema(schema);
  const converted = typebox().Value.Convert(schema, structuredClone(args ?? {}));
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
