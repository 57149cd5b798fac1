import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The bytes of a recording in `recordings/`, read as written: line endings, non-ASCII text
 * and all. (Kept in files rather than template literals, which the transpiler would escape.)
 */
export function recording(file: string): string {
  return readFileSync(join(import.meta.dir, "recordings", file), "utf8");
}
