/** Writes app-server.schema.json next to package.json. Run: `bun run generate:schema`. */
import { join } from "node:path";
import { renderProtocolSchema, SCHEMA_FILE_NAME } from "../src/json-schema.ts";

const target = join(import.meta.dir, "..", SCHEMA_FILE_NAME);
await Bun.write(target, renderProtocolSchema());
process.stderr.write(`wrote ${target}\n`);
