/**
 * Splits the schemas the pre-compiled validators are generated from into parts, so that
 * ajv emits each large nested subschema (a property's object, an `anyOf` of many
 * constants, an MCP server entry) as a function of its own, called only when the value
 * has that property. ajv otherwise inlines every nested schema into one function per
 * method, and JavaScriptCore parses and compiles a function's whole body on its first
 * call: the first `thread/start` paid for the code of every optional property it did not
 * carry.
 *
 * A part is referenced by `$ref` and compiled with `inlineRefs: false`; equal subschemas
 * (the model, sandbox and MCP server shapes that several methods share) become one part.
 * A `$ref` only moves where the checks run: the errors are the same objects in the same
 * order, apart from `schemaPath`, which nothing reads.
 */

/** A subschema heavier than this (keywords, a reference counting one) becomes a part. */
const PART_MIN_WEIGHT = 4;

/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties"]);
/** Keywords whose value is one subschema (`items` only when it is not a tuple). */
const SCHEMA_VALUES = new Set(["additionalProperties", "items"]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf"]);

/** The split schemas: each root with its large subschemas replaced by references, and the parts. */
export interface SplitSchemas {
  roots: Map<string, object>;
  /** Part id to schema, in the order they were first met; a part may reference other parts. */
  parts: Map<string, object>;
}

interface Weighed {
  schema: unknown;
  weight: number;
}

/** Splits `roots` (key to schema); the input schemas are not modified. */
export function splitIntoParts(roots: Map<string, object>): SplitSchemas {
  const parts = new Map<string, object>();
  const idByText = new Map<string, string>();

  const asPart = (child: Weighed): Weighed => {
    if (child.weight < PART_MIN_WEIGHT) return child;
    const text = JSON.stringify(child.schema);
    let id = idByText.get(text);
    if (id === undefined) {
      id = `part${parts.size}`;
      idByText.set(text, id);
      parts.set(id, child.schema as object);
    }
    return { schema: { $ref: id }, weight: 1 };
  };

  const split = (schema: unknown): Weighed => {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
      return { schema, weight: 1 };
    }
    const out: Record<string, unknown> = {};
    let weight = 0;
    for (const [keyword, value] of Object.entries(schema)) {
      weight += 1;
      if (SCHEMA_MAPS.has(keyword) && isPlainObject(value)) {
        const map: Record<string, unknown> = {};
        for (const [name, child] of Object.entries(value)) {
          const part = asPart(split(child));
          map[name] = part.schema;
          weight += part.weight;
        }
        out[keyword] = map;
      } else if (SCHEMA_VALUES.has(keyword) && isPlainObject(value)) {
        const part = asPart(split(value));
        out[keyword] = part.schema;
        weight += part.weight;
      } else if (SCHEMA_LISTS.has(keyword) && Array.isArray(value)) {
        out[keyword] = value.map((child) => {
          const part = asPart(split(child));
          weight += part.weight;
          return part.schema;
        });
      } else {
        out[keyword] = value;
      }
    }
    return { schema: out, weight };
  };

  const splitRoots = new Map<string, object>();
  for (const [key, schema] of roots) splitRoots.set(key, split(schema).schema as object);
  return { roots: splitRoots, parts };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
