/**
 * Compiled extension factories, shared by every thread of the process. A thread leases
 * the factories it loaded and releases them when it unloads; at most `maxInactive`
 * factories nobody leases stay cached (least recently used go first). A factory whose
 * entry file changed on disk (size or mtime) is imported again under a new generation,
 * so the next thread load sees the new code. Bun keeps evicted modules in memory: the
 * cache bounds what the runtime holds, not what the JavaScript engine frees.
 */
import { statSync } from "node:fs";
import type { ExtensionFactory } from "./api-types.ts";
import { ExtensionLoadError, importExtension } from "./module-loader.ts";

/** The spec's bound on inactive factories. */
export const MAX_INACTIVE_FACTORIES = 256;

/** One cached factory; a lease names the entry it holds. */
export interface CachedFactory {
  readonly path: string;
  readonly signature: string;
  readonly factory: ExtensionFactory;
  leases: number;
}

let generations = 0;

function signatureOf(path: string): string {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new ExtensionLoadError(`Extension not found: ${path}`, path);
  return `${stat.size}:${stat.mtimeMs}`;
}

/** The process-wide factory cache. */
export class FactoryCache {
  private readonly entries = new Map<string, CachedFactory>();
  private readonly importing = new Map<string, Promise<CachedFactory>>();

  constructor(private readonly maxInactive = MAX_INACTIVE_FACTORIES) {}

  /** Leases the factory of `path`, importing it when absent or changed on disk. */
  async acquire(path: string): Promise<CachedFactory> {
    const signature = signatureOf(path);
    const cached = this.entries.get(path);
    if (cached && cached.signature === signature) {
      cached.leases++;
      // most recently used last
      this.entries.delete(path);
      this.entries.set(path, cached);
      return cached;
    }
    const key = `${path}\0${signature}`;
    let pending = this.importing.get(key);
    if (!pending) {
      pending = this.importFresh(path, signature);
      this.importing.set(key, pending);
      void pending.then(
        () => this.importing.delete(key),
        () => this.importing.delete(key),
      );
    }
    const entry = await pending;
    entry.leases++;
    return entry;
  }

  private async importFresh(path: string, signature: string): Promise<CachedFactory> {
    generations++;
    const exported = await importExtension(path, String(generations));
    if (typeof exported !== "function") {
      throw new ExtensionLoadError(`Extension has no default export function: ${path}`, path);
    }
    const entry: CachedFactory = { path, signature, factory: exported as ExtensionFactory, leases: 0 };
    // a superseded entry stays with the threads that lease it; the map holds the newest
    this.entries.delete(path);
    this.entries.set(path, entry);
    this.evict();
    return entry;
  }

  /** Gives a lease back. */
  release(entry: CachedFactory): void {
    if (entry.leases > 0) entry.leases--;
    this.evict();
  }

  /** Factories cached with no lease. */
  inactiveCount(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (entry.leases === 0) count++;
    return count;
  }

  private evict(): void {
    let inactive = this.inactiveCount();
    if (inactive <= this.maxInactive) return;
    for (const [path, entry] of this.entries) {
      if (inactive <= this.maxInactive) break;
      if (entry.leases > 0) continue;
      this.entries.delete(path);
      inactive--;
    }
  }
}
