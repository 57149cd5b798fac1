/**
 * The text a write is about to replace, read when the call is announced so the editor
 * can show the whole-file diff before it approves. Synchronous on purpose: it runs in
 * the notification handler, before the tool can run.
 */
import { readFileSync, statSync } from "node:fs";

/** Largest file whose text a write's diff shows as its old text. */
export const DIFF_OLD_TEXT_LIMIT_BYTES = 1024 * 1024;

/** The text a write is about to replace: null for a new file, undefined when too large to show. */
export function currentText(path: string | undefined): string | null | undefined {
  if (path === undefined) return undefined;
  try {
    const stats = statSync(path);
    if (!stats.isFile() || stats.size > DIFF_OLD_TEXT_LIMIT_BYTES) return undefined;
    return readFileSync(path, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}
