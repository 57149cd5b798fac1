/**
 * Cheap change detection for small config files read on hot paths (`models.json` on every
 * model lookup, `auth.json` on every key lookup): one `stat` decides whether the last
 * parse still holds, so edits apply at once without re-reading unchanged files.
 */
import { statSync } from "node:fs";

/**
 * `inode:size:mtime:ctime` of a file, `missing` when there is none; undefined when stat
 * fails otherwise, or when the file changed in the last second: file timestamps advance
 * in clock ticks, so two same-size writes within one tick could share a signature, and a
 * file that recent is read afresh instead. Synchronous on purpose: one metadata lookup
 * takes microseconds, far less than a round trip through the thread pool.
 */
export function fileSignature(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    if (BigInt(Date.now() - 1000) * 1_000_000n < s.mtimeNs) return undefined;
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : undefined;
  }
}

/**
 * The last load of one file, kept while its signature (and `extraKey`) is unchanged. A
 * failed load is never kept, so a malformed file is reported on every call.
 */
export class SignatureCache<T> {
  private cached: { key: string; value: Promise<T> } | undefined;

  constructor(private readonly path: string) {}

  get(load: () => Promise<T>, extraKey = ""): Promise<T> {
    const signature = fileSignature(this.path);
    if (signature === undefined) return load();
    const key = `${signature}|${extraKey}`;
    if (this.cached?.key === key) return this.cached.value;
    const entry = { key, value: load() };
    this.cached = entry;
    entry.value.catch(() => {
      if (this.cached === entry) this.cached = undefined;
    });
    return entry.value;
  }

  /** Forgets the kept load. */
  clear(): void {
    this.cached = undefined;
  }
}
