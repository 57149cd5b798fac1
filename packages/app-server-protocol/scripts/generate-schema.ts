/**
 * Writes the generated files: app-server.schema.json next to package.json and the
 * pre-compiled validators. Run: `bun run generate:schema`.
 */
import { join } from "node:path";
import { renderProtocolSchema, SCHEMA_FILE_NAME } from "../src/json-schema.ts";
import { renderValidatorsModule, VALIDATORS_FILE } from "../src/validator-codegen.ts";

const root = join(import.meta.dir, "..");
for (const [file, text] of [
  [SCHEMA_FILE_NAME, renderProtocolSchema()],
  [VALIDATORS_FILE, renderValidatorsModule()],
] as const) {
  await Bun.write(join(root, file), text);
  process.stderr.write(`wrote ${join(root, file)}\n`);
}
