/**
 * The built-in tools declare their parameters as plain JSON Schema objects, so loading
 * the agent does not load TypeBox's type builder (hundreds of small modules from source,
 * parsed on every start before the first thread is ready: docs/cold-start.md).
 *
 * TypeBox's `Value.Convert`, which coerces a model's `"3"` into the integer 3 before
 * validation, recognises a schema by the hidden `~kind` and `~optional` marks its builder
 * adds; a plain object gets no coercion. This adds the same marks, the same way
 * (non-enumerable, so the JSON a model sees is unchanged), for the keywords the built-in
 * schemas use. `test/tools/builtin-schemas.test.ts` checks each schema against TypeBox's
 * own builder.
 */

const KIND_OF_TYPE: Record<string, string> = {
  object: "Object",
  array: "Array",
  string: "String",
  number: "Number",
  integer: "Integer",
  boolean: "Boolean",
};

interface PlainSchema {
  type?: string;
  properties?: Record<string, PlainSchema>;
  required?: readonly string[];
  items?: PlainSchema;
}

function mark(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: false, configurable: true });
}

/** Marks `schema` (and every schema inside it) as TypeBox's builder would have built it; returns it. */
export function withTypeBoxKinds<T extends object>(schema: T): T {
  const plain = schema as PlainSchema;
  const kind = plain.type === undefined ? undefined : KIND_OF_TYPE[plain.type];
  if (kind === undefined) throw new Error(`withTypeBoxKinds: no TypeBox kind for type ${String(plain.type)}`);
  mark(schema, "~kind", kind);
  if (plain.items !== undefined) withTypeBoxKinds(plain.items);
  for (const [key, property] of Object.entries(plain.properties ?? {})) {
    withTypeBoxKinds(property);
    if (!(plain.required ?? []).includes(key)) mark(property, "~optional", true);
  }
  return schema;
}
