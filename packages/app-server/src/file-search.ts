/**
 * `file/search`: lists a project's files with `fd` (spawned with an argument array,
 * never a shell), caches each listing briefly, and ranks paths with the fuzzy matcher.
 * Listings are shared by every search on the same cwd; a newer search with the same
 * `searchId` supersedes the older one at once, from any connection.
 */
import { statSync } from "node:fs";
import { type FuzzyMatch, rankPaths } from "./fuzzy-match.ts";

/** Why a search failed; `code` is the wire error code. */
export class FileSearchError extends Error {
  constructor(
    readonly code: "toolMissing" | "internal" | "shuttingDown" | "invalidParams",
    message: string,
  ) {
    super(message);
    this.name = "FileSearchError";
  }
}

/** Tunables; the defaults are the spec's numbers. */
export interface FileSearchOptions {
  /** Executables to try in order; the first one found on PATH (or an absolute path) wins. */
  fdCandidates?: string[];
  ttlMs?: number;
  maxCachedCwds?: number;
  maxActiveListings?: number;
  maxPaths?: number;
  maxBytes?: number;
  timeoutMs?: number;
  now?: () => number;
  /** Called after the running or queued listings change, with the new stats (for tests). */
  onListingStateChange?: (stats: FileSearchStats) => void;
}

/** What {@link FileSearch.stats} reports. */
export interface FileSearchStats {
  cachedCwds: number;
  activeListings: number;
  queuedListings: number;
}

/** One request's parameters (already validated). */
export interface FileSearchRequest {
  cwd: string;
  query: string;
  limit?: number;
  searchId?: string;
  /** Who asked (a connection ID): {@link FileSearch.cancelOwner} withdraws its searches. */
  owner?: string;
}

/** The result shape of `file/search`. */
export interface FileSearchResult {
  files: FuzzyMatch[];
  truncated: boolean;
}

interface Listing {
  paths: string[];
  truncated: boolean;
  /** Failed with partial output: usable by its waiters, never cached. */
  cacheable: boolean;
}

interface Flight {
  promise: Promise<Listing>;
  waiters: number;
  abort: () => void;
}

interface Pending {
  owner: string | undefined;
  settle: (result: FileSearchResult) => void;
  fail: (error: Error) => void;
}

/** Files only, hidden ones included, `.git` left out, symlinks not followed, no colour. */
const FD_ARGS = (fd: string): string[] => [
  fd,
  "--type",
  "f",
  "--hidden",
  "--exclude",
  ".git",
  "--color",
  "never",
  "--no-follow",
];

const EMPTY: FileSearchResult = { files: [], truncated: false };

/** The shared file-search service of one server. */
export interface FileSearch {
  search(request: FileSearchRequest): Promise<FileSearchResult>;
  /** Rejects every pending search with `shuttingDown` and kills running listings. */
  shutdown(): void;
  /**
   * Withdraws the pending searches of an owner that went away (a closed connection):
   * they settle empty, and a listing left without waiters is aborted.
   */
  cancelOwner(owner: string): void;
  /** Cached cwds and running listings, for tests and diagnostics. */
  stats(): FileSearchStats;
}

/** Drains a stream to its end, keeping only the first `maxBytes` as text. */
async function readHead(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const kept: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      if (size < maxBytes) {
        kept.push(chunk.subarray(0, maxBytes - size));
        size += Math.min(chunk.byteLength, maxBytes - size);
      }
    }
  } catch {
    // a killed listing's stream may end abruptly; what was read is enough for a message
  }
  return Buffer.concat(kept).toString("utf8");
}

/** Creates the service; nothing is spawned until the first search. */
export function createFileSearch(options: FileSearchOptions = {}): FileSearch {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 10_000;
  const maxCached = options.maxCachedCwds ?? 8;
  const maxActive = options.maxActiveListings ?? 2;
  const maxPaths = options.maxPaths ?? 200_000;
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const candidates = options.fdCandidates ?? ["fd", "fdfind"];

  const cache = new Map<string, { listing: Listing; expiresAt: number }>();
  const flights = new Map<string, Flight>();
  const bySearchId = new Map<string, Pending>();
  const allPending = new Set<Pending>();
  const slotWaiters: (() => void)[] = [];
  let active = 0;
  let closed = false;
  let fdPath: string | null | undefined;

  function resolveFd(): string | null {
    if (fdPath !== undefined) return fdPath;
    fdPath = null;
    for (const name of candidates) {
      const found = name.includes("/") ? (Bun.file(name).size > 0 ? name : null) : Bun.which(name);
      if (found) {
        fdPath = found;
        break;
      }
    }
    return fdPath;
  }

  function cached(cwd: string): Listing | undefined {
    const hit = cache.get(cwd);
    if (hit === undefined) return undefined;
    if (now() >= hit.expiresAt) {
      cache.delete(cwd);
      return undefined;
    }
    // re-insert so Map order doubles as least-recently-used order
    cache.delete(cwd);
    cache.set(cwd, hit);
    return hit.listing;
  }

  function store(cwd: string, listing: Listing): void {
    cache.delete(cwd);
    cache.set(cwd, { listing, expiresAt: now() + ttlMs });
    while (cache.size > maxCached) cache.delete(cache.keys().next().value as string);
  }

  const stats = (): FileSearchStats => ({
    cachedCwds: cache.size,
    activeListings: active,
    queuedListings: slotWaiters.length,
  });

  function listingStateChanged(): void {
    options.onListingStateChange?.(stats());
  }

  async function acquireSlot(signal: AbortSignal): Promise<void> {
    while (active >= maxActive) {
      const woken = new Promise<void>((resolve) => slotWaiters.push(resolve));
      listingStateChanged();
      await woken;
      if (signal.aborted) throw new FileSearchError("internal", "listing aborted");
    }
    active++;
    listingStateChanged();
  }

  function releaseSlot(): void {
    active--;
    slotWaiters.shift()?.();
    listingStateChanged();
  }

  async function runFd(fd: string, cwd: string, signal: AbortSignal): Promise<Listing> {
    await acquireSlot(signal);
    try {
      // abandoned while it waited (or before it began): an abort listener added now would never fire
      if (signal.aborted) throw new FileSearchError("internal", "listing aborted");
      let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
      try {
        child = Bun.spawn(FD_ARGS(fd), { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      } catch (error) {
        // the binary vanished after lookup, or is not executable
        throw new FileSearchError("toolMissing", `could not run ${fd}: ${String(error)}`);
      }
      // read at once: fd reports every unreadable directory there, and an unread pipe
      // would block it once full; only the start is kept for the error message
      const stderrHead = readHead(child.stderr, 2_000);
      let timedOut = false;
      const kill = () => child.kill("SIGKILL");
      signal.addEventListener("abort", kill, { once: true });
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, timeoutMs);
      const paths: string[] = [];
      let bytes = 0;
      let truncated = false;
      let rest = "";
      const decoder = new TextDecoder();
      try {
        const reader = child.stdout.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          if (bytes + value.byteLength > maxBytes) {
            // keep only the complete lines that fit under the byte cap
            const room = maxBytes - bytes;
            const cut = value.subarray(0, room);
            const lastNl = cut.lastIndexOf(10);
            rest += decoder.decode(lastNl >= 0 ? cut.subarray(0, lastNl + 1) : new Uint8Array(0));
            truncated = true;
          } else {
            bytes += value.byteLength;
            rest += decoder.decode(value, { stream: true });
          }
          const lines = rest.split("\n");
          rest = lines.pop() ?? "";
          for (const line of lines) {
            if (line.length === 0) continue;
            paths.push(line.startsWith("./") ? line.slice(2) : line);
            if (paths.length >= maxPaths) {
              truncated = true;
              break;
            }
          }
          if (truncated) {
            kill();
            await reader.cancel().catch(() => {});
            break;
          }
        }
        const exitCode = await child.exited;
        if (!truncated && rest.length > 0) paths.push(rest.startsWith("./") ? rest.slice(2) : rest);
        if (signal.aborted) throw new FileSearchError("internal", "listing aborted");
        if (timedOut) throw new FileSearchError("internal", `fd did not finish within ${timeoutMs} ms`);
        if (truncated) return { paths, truncated: true, cacheable: true };
        if (exitCode !== 0) {
          const stderr = (await stderrHead).trim().slice(0, 500);
          if (paths.length === 0)
            throw new FileSearchError("internal", `fd failed (exit ${exitCode}): ${stderr}`);
          return { paths, truncated: false, cacheable: false };
        }
        return { paths, truncated: false, cacheable: true };
      } finally {
        clearTimeout(timer);
        signal.removeEventListener("abort", kill);
      }
    } finally {
      releaseSlot();
    }
  }

  function listingFor(cwd: string): Flight | Listing {
    const hit = cached(cwd);
    if (hit !== undefined) return hit;
    const existing = flights.get(cwd);
    if (existing !== undefined) return existing;
    const fd = resolveFd();
    if (fd === null) throw new FileSearchError("toolMissing", "fd (or fdfind) is not installed");
    const controller = new AbortController();
    // an aborted listing leaves the table at once: a later search starts a fresh one
    // instead of joining a listing that is about to fail
    const forget = (): void => {
      if (flights.get(cwd) === flight) flights.delete(cwd);
    };
    const flight: Flight = {
      waiters: 0,
      abort: () => {
        forget();
        controller.abort();
      },
      promise: runFd(fd, cwd, controller.signal).then(
        (listing) => {
          forget();
          if (listing.cacheable) store(cwd, listing);
          return listing;
        },
        (error: unknown) => {
          forget();
          throw error;
        },
      ),
    };
    flight.promise.catch(() => {});
    flights.set(cwd, flight);
    return flight;
  }

  return {
    async search(request) {
      if (closed) throw new FileSearchError("shuttingDown", "the server is shutting down");
      const limit = request.limit ?? 50;
      const info = statSync(request.cwd, { throwIfNoEntry: false });
      if (!info?.isDirectory())
        throw new FileSearchError("invalidParams", "cwd is not an existing directory");

      const { promise, resolve, reject } = Promise.withResolvers<FileSearchResult>();
      let done = false;
      let flight: Flight | undefined;
      const pending: Pending = {
        owner: request.owner,
        settle: (result) => {
          if (done) return;
          done = true;
          finish();
          resolve(result);
        },
        fail: (error) => {
          if (done) return;
          done = true;
          finish();
          reject(error);
        },
      };
      function finish(): void {
        allPending.delete(pending);
        if (request.searchId !== undefined && bySearchId.get(request.searchId) === pending) {
          bySearchId.delete(request.searchId);
        }
        if (flight !== undefined && --flight.waiters === 0) {
          // nobody wants this listing any more; an unfinished one is aborted
          if (flights.get(request.cwd) === flight) flight.abort();
        }
      }
      allPending.add(pending);
      // join the listing before superseding, so a shared listing never loses its last waiter
      let source: Flight | Listing | undefined;
      let sourceError: Error | undefined;
      try {
        source = listingFor(request.cwd);
        if ("promise" in source) {
          flight = source;
          flight.waiters++;
        }
      } catch (error) {
        sourceError = error instanceof Error ? error : new Error(String(error));
      }
      if (request.searchId !== undefined) {
        bySearchId.get(request.searchId)?.settle(EMPTY);
        bySearchId.set(request.searchId, pending);
      }
      if (sourceError !== undefined || source === undefined) {
        pending.fail(sourceError ?? new FileSearchError("internal", "no listing"));
      } else if ("promise" in source) {
        source.promise.then(
          (listing) => pending.settle(rank(listing)),
          (error: unknown) => pending.fail(error instanceof Error ? error : new Error(String(error))),
        );
      } else {
        pending.settle(rank(source));
      }
      return promise;

      function rank(listing: Listing): FileSearchResult {
        return { files: rankPaths(listing.paths, request.query, limit), truncated: listing.truncated };
      }
    },
    shutdown() {
      closed = true;
      for (const pending of [...allPending]) {
        pending.fail(new FileSearchError("shuttingDown", "the server is shutting down"));
      }
      for (const flight of flights.values()) flight.abort();
      for (const wake of slotWaiters.splice(0)) wake();
      listingStateChanged();
    },
    cancelOwner(owner) {
      for (const pending of [...allPending]) if (pending.owner === owner) pending.settle(EMPTY);
    },
    stats,
  };
}
