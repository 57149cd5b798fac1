/**
 * One transcript in memory: its header and entry tree, the current leaf, and (when
 * owned) an append-only writer guarded by the transcript's lock.
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { buildSessionContext, type SessionContext } from "./context.ts";
import {
  CURRENT_SESSION_VERSION,
  type NewEntry,
  type SessionEntry,
  type SessionHeader,
  type SessionWorktree,
} from "./entries.ts";
import type { SessionDamage } from "./entry-links.ts";
import { ThreadLockedElsewhereError, ThreadNotFoundError } from "./errors.ts";
import { createEntryId, createSessionId, type ParsedSession, serializeLine } from "./format.ts";
import { sessionFileName } from "./locations.ts";
import { SessionLock } from "./lock.ts";
import {
  APPEND_FLAGS,
  checkNewEntryId,
  createTranscriptFile,
  fsyncDir,
  fsyncInBackground,
  parseOrThrow,
  realPathOf,
  rewriteMigrated,
  setTornTailAside,
  unwrittenTranscript,
  writeLine,
} from "./session-file-io.ts";

/** Options of `SessionFile.create`. */
export interface CreateSessionOptions {
  /** Directory the transcript goes into (created if missing). */
  dir: string;
  cwd: string;
  /** Path of the transcript this one forks. */
  parentSession?: string;
  /** The parent's header ID (thread ID). */
  forkedFromId?: string;
  /** Overrides the generated UUIDv7 (tests, imports). */
  id?: string;
  /** The thread's server-owned worktree, kept in the header. */
  worktree?: SessionWorktree;
  /** Overrides the creation time. */
  now?: Date;
  /**
   * Entries written with the header, in order, each the child of the one before (the
   * first a root), before the one file fsync: the new file is durable with them when
   * `create` returns, at two fsyncs (file and directory) instead of a third for a `sync`
   * after `append`s. Built as `append` builds them: an `id` inside an entry chooses its
   * ID (8 lowercase hex chars, unique in the list, else `RangeError` and no file is
   * created); a missing `timestamp` is the time of the call. The leaf is the last one.
   */
  initialEntries?: readonly InitialEntry[];
  /**
   * Writes the file only once an entry this accepts is among `initialEntries` or is
   * appended: until then the session lives in memory only (no file, no lock; `sync` has
   * nothing to do and closing leaves nothing behind), so a thread nobody used leaves no
   * transcript. The first accepted entry writes the header and every entry so far in
   * one write, takes the lock and starts the fsyncs; the next `sync` waits for them.
   */
  writeWhen?: (entry: SessionEntry) => boolean;
}

/** One of `CreateSessionOptions.initialEntries`: a new entry, optionally with its chosen ID. */
export type InitialEntry = NewEntry & { id?: string };

/** Options of `SessionFile.append`. */
export interface AppendOptions {
  /**
   * The new entry's ID, chosen before the write (see `reserveEntryId`) so the entry
   * can name itself, as a retain-none compaction's `firstKeptEntryId` does. Must be
   * 8 lowercase hex chars and not used by any entry of the file.
   */
  id?: string;
}

/** A transcript just created by `SessionFile.createSyncing`, its fsyncs still running. */
export interface SyncingSession {
  session: SessionFile;
  /**
   * Settles once the pool's fsyncs are done: the header, the initial entries and the
   * file's name are durable. Rejects with the file fsync's error.
   */
  durable: Promise<void>;
  /**
   * Makes the file durable before it returns, without giving the event loop a turn:
   * nothing more once the pool's fsyncs have reported (their error, if any, is thrown);
   * otherwise an fsync of the writer and one of the directory on the main thread, cheap
   * once the pool's have run, since the journal commit they wait for is done or under
   * way. For a caller that must not let other queued work run before its answer.
   */
  ensureDurable(): void;
}

/** A session transcript opened for reading, or owned for appending. */
export class SessionFile {
  /** The path the caller used (may be a symlink alias). */
  readonly path: string;
  /** The resolved real path; ownership is keyed by it. */
  readonly realPath: string;
  readonly header: SessionHeader;
  /** Header version found on disk before in-memory migration. */
  readonly sourceVersion: number;
  /** Lines skipped as unreadable on open. */
  readonly skippedLines: number;
  /** What the open skipped or repaired in a damaged file (nothing on disk changes for it). */
  readonly damage: SessionDamage;
  /** Where a torn last line was moved aside on owned open, if there was one. */
  readonly tornTailSavedTo: string | undefined;
  /** True for `openReadOnly`: never locks, never writes. */
  readonly readOnly: boolean;

  #entries: SessionEntry[];
  #lineBytes: number[];
  #byId = new Map<string, SessionEntry>();
  #sizeById = new Map<string, number>();
  #leafId: string | null;
  #lock: SessionLock | undefined;
  #fd: number | undefined;
  #needsNewline: boolean;
  /** Bytes of the file that hold complete lines: where a failed write is cut back to. */
  #size: number;
  /** IDs handed out by `reserveEntryId` and not yet appended. */
  #reserved = new Set<string>();
  /** fsyncs running on the thread pool (`syncInBackground`). */
  readonly #syncing = new Set<Promise<void>>();
  #closed = false;
  /** Set while nothing is on disk: what decides that the file is written. */
  #writeWhen: ((entry: SessionEntry) => boolean) | undefined;
  /** After a deferred write: makes the new file and its name durable (the next `sync` calls it). */
  #finishCreation: (() => void) | undefined;

  private constructor(init: {
    path: string;
    realPath: string;
    parsed: ParsedSession;
    lock?: SessionLock;
    fd?: number;
    /** Not on disk yet: written once an entry this accepts comes (see `writeWhen`). */
    writeWhen?: (entry: SessionEntry) => boolean;
    /** Current size of the owned file (defaults to the parsed valid bytes). */
    size?: number;
    tornTailSavedTo?: string;
  }) {
    this.path = init.path;
    this.realPath = init.realPath;
    this.header = init.parsed.header;
    this.sourceVersion = init.parsed.sourceVersion;
    this.skippedLines = init.parsed.skippedLines;
    this.damage = init.parsed.damage;
    this.tornTailSavedTo = init.tornTailSavedTo;
    this.readOnly = init.lock === undefined && init.writeWhen === undefined;
    this.#writeWhen = init.writeWhen;
    this.#entries = init.parsed.entries;
    this.#lineBytes = init.parsed.lineBytes;
    for (let i = 0; i < this.#entries.length; i++) {
      const entry = this.#entries[i]!;
      this.#byId.set(entry.id, entry);
      this.#sizeById.set(entry.id, this.#lineBytes[i]!);
    }
    this.#leafId = this.#entries.at(-1)?.id ?? null;
    this.#lock = init.lock;
    this.#fd = init.fd;
    this.#needsNewline = init.parsed.missingFinalNewline && init.parsed.tornTail === undefined;
    this.#size = init.size ?? init.parsed.validBytes;
  }

  /**
   * Creates a new transcript (never overwriting one), owns it and writes its header and
   * `initialEntries` durably (one file fsync plus the directory's): it returns once both
   * are done. A failed fsync rejects, with the file closed and its lock released.
   */
  static async create(options: CreateSessionOptions): Promise<SessionFile> {
    const { session, durable } = SessionFile.createSyncing(options);
    try {
      await durable;
    } catch (error) {
      session.close();
      throw error;
    }
    return session;
  }

  /**
   * `create` without waiting for the disk: the transcript exists, owned and with its
   * whole content written, when this returns, and its fsyncs (file and directory) run on
   * Bun's thread pool, so a caller can do other work meanwhile and acknowledge the new
   * file only after `await durable`, or after `ensureDurable()` where letting other work
   * run first would delay its answer (on the open session). On a failure the caller
   * closes the session (as `create` does). Closing it before `durable` settles is safe:
   * the fsyncs run on descriptors of their own. Errors up to the write (a bad entry ID,
   * which creates no file, an existing file, the lock, the write) are thrown here.
   */
  static createSyncing(options: CreateSessionOptions): SyncingSession {
    mkdirSync(options.dir, { recursive: true });
    const now = options.now ?? new Date();
    const header: SessionHeader = {
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id: options.id ?? createSessionId(),
      timestamp: now.toISOString(),
      cwd: options.cwd,
    };
    if (options.parentSession !== undefined) header.parentSession = options.parentSession;
    if (options.forkedFromId !== undefined) header.forkedFromId = options.forkedFromId;
    if (options.worktree !== undefined) header.worktree = options.worktree;
    // Checked before anything touches the disk: a bad ID creates no file.
    const entries = buildInitialEntries(options.initialEntries ?? []);
    const name = sessionFileName(header.timestamp, header.id);
    const realPath = join(realpathSync(options.dir), name);
    const { writeWhen } = options;
    if (writeWhen !== undefined && !entries.some(writeWhen)) {
      const parsed = unwrittenTranscript(header, entries);
      const session = new SessionFile({ path: join(options.dir, name), realPath, parsed, writeWhen });
      return { session, durable: Promise.resolve(), ensureDurable: () => {} };
    }
    const lock = SessionLock.acquire(realPath);
    try {
      const { fd, parsed, durable } = createTranscriptFile(realPath, header, entries);
      const session = new SessionFile({ path: join(options.dir, name), realPath, parsed, lock, fd });
      return { session, durable, ensureDurable: finishDurability(session, durable) };
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /** Opens and owns a transcript: takes its lock, refuses hard links, sets a torn tail aside, migrates old versions on disk. */
  static async openOwned(path: string): Promise<SessionFile> {
    const realPath = realPathOf(path);
    const lock = SessionLock.acquire(realPath);
    let fd: number | undefined;
    try {
      fd = openSync(realPath, APPEND_FLAGS);
      if (fstatSync(fd).nlink > 1) {
        throw new ThreadLockedElsewhereError(realPath, { reason: "hardLinked" });
      }
      const parsed = parseOrThrow(realPath, readFileSync(realPath));
      let tornTailSavedTo: string | undefined;
      if (parsed.tornTail !== undefined) tornTailSavedTo = setTornTailAside(fd, realPath, parsed);
      if (parsed.sourceVersion < CURRENT_SESSION_VERSION) {
        closeSync(fd);
        fd = undefined;
        rewriteMigrated(realPath, parsed);
        fd = openSync(realPath, APPEND_FLAGS);
      }
      return new SessionFile({
        path,
        realPath,
        parsed,
        lock,
        fd,
        size: fstatSync(fd).size,
        ...(tornTailSavedTo ? { tornTailSavedTo } : {}),
      });
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      lock.release();
      // Moved or deleted between resolving the path and taking its lock (an archive won the race).
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new ThreadNotFoundError(path);
      throw error;
    }
  }

  /**
   * Creates an owned fork: a new transcript whose header names the source (path and
   * thread ID) and which starts with the source's branch up to `leafId`, IDs kept.
   */
  static async createFork(
    source: SessionFile,
    options: { dir: string; leafId?: string | null; cwd?: string; now?: Date },
  ): Promise<SessionFile> {
    const path = source.branch(options.leafId === undefined ? source.leafId : options.leafId);
    // A branch is a parent chain from a root, so copies keep their IDs, parents and times
    // as initial entries, written and fsynced with the header.
    const initialEntries = path.map(({ parentId: _parent, ...copy }) => copy as InitialEntry);
    return SessionFile.create({
      dir: options.dir,
      cwd: options.cwd ?? source.header.cwd,
      parentSession: source.realPath,
      forkedFromId: source.id,
      initialEntries,
      ...(options.now ? { now: options.now } : {}),
    });
  }

  /** Reads a transcript without locking or writing; a torn last line is ignored. */
  static async openReadOnly(path: string): Promise<SessionFile> {
    const realPath = realPathOf(path);
    const bytes = await Bun.file(realPath).bytes();
    return new SessionFile({ path, realPath, parsed: parseOrThrow(realPath, bytes) });
  }

  /** The thread ID (header ID). */
  get id(): string {
    return this.header.id;
  }

  /** All entries in file order. */
  get entries(): readonly SessionEntry[] {
    return this.#entries;
  }

  /** The current position; the last appended entry unless moved. */
  get leafId(): string | null {
    return this.#leafId;
  }

  /** ISO time of the newest entry in the file, else the header's creation time. */
  get updatedAt(): string {
    return this.#entries.at(-1)?.timestamp ?? this.header.timestamp;
  }

  /** The latest `session_info` name in the file, if any. */
  get name(): string | undefined {
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      const entry = this.#entries[i]!;
      if (entry.type === "session_info") return entry.name;
    }
    return undefined;
  }

  /** Whether the lock is still ours (false for read-only and closed files); an unwritten session is ours. */
  get owned(): boolean {
    return !this.#closed && (this.#writeWhen !== undefined || this.#lock?.held === true);
  }

  /** False while a session made with `writeWhen` has not been written: no file, no lock. */
  get written(): boolean {
    return this.#writeWhen === undefined;
  }

  /** Writes an unwritten session's file now (its header and every entry so far); nothing when written. */
  write(): void {
    if (this.#closed) throw new Error(`session ${this.path} is closed`);
    if (this.#writeWhen === undefined) return;
    const lock = SessionLock.acquire(this.realPath);
    try {
      const { fd, durable } = createTranscriptFile(this.realPath, this.header, this.#entries);
      this.#lock = lock;
      this.#fd = fd;
      this.#size = this.#lineBytes.reduce(
        (sum, bytes) => sum + bytes,
        Buffer.byteLength(serializeLine(this.header)),
      );
      this.#writeWhen = undefined;
      this.#finishCreation = finishDurability(this, durable);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /** The entry with that ID, on any branch. */
  getEntry(id: string): SessionEntry | undefined {
    return this.#byId.get(id);
  }

  /** Size in bytes of the entry's stored line (for payload-size decisions without re-serializing). */
  entryBytes(id: string): number | undefined {
    return this.#sizeById.get(id);
  }

  /** Moves the leaf (null = before the first entry); the next append becomes its child. */
  setLeaf(id: string | null): void {
    if (id !== null && !this.#byId.has(id)) throw new Error(`no entry ${id} in ${this.path}`);
    this.#leafId = id;
  }

  /**
   * Entries from the root to `leafId` (default: the current leaf), root first. Parents
   * always precede their children (see `linkEntries`), so the walk ends; the bound only
   * guards that invariant.
   */
  branch(leafId: string | null = this.#leafId): SessionEntry[] {
    const path: SessionEntry[] = [];
    let current = leafId === null ? undefined : this.#byId.get(leafId);
    while (current && path.length <= this.#entries.length) {
      path.push(current);
      current = current.parentId === null ? undefined : this.#byId.get(current.parentId);
    }
    return path.reverse();
  }

  /** The model context and settings of the current branch. */
  context(leafId: string | null = this.#leafId): SessionContext {
    return buildSessionContext(this.branch(leafId), this.header);
  }

  /**
   * A fresh entry ID for a later `append(entry, { id })`: 8 hex chars used by no entry
   * of the file and by no earlier reservation still unused. Writes nothing.
   */
  reserveEntryId(): string {
    const id = createEntryId({
      has: (candidate) => this.#byId.has(candidate) || this.#reserved.has(candidate),
    });
    this.#reserved.add(id);
    return id;
  }

  /**
   * Appends one entry as a child of the leaf and moves the leaf to it: one `write`,
   * no fsync (call `sync` at durability points). Re-checks ownership first.
   * `options.id` (or, for older callers, an `id` inside `input`) sets the entry's ID;
   * it must be 8 lowercase hex chars unused in the file, else `RangeError` and nothing
   * is written. A write that fails part way is cut back, so no partial line stays.
   */
  append(input: NewEntry, options: AppendOptions = {}): SessionEntry {
    const fd = this.#writeWhen === undefined ? this.#writableFd() : this.#unwrittenCheck();
    const { type, timestamp, id: inlineId, ...rest } = input as NewEntry & Record<string, unknown>;
    const chosen = options.id ?? inlineId;
    if (options.id !== undefined && inlineId !== undefined && inlineId !== options.id) {
      throw new RangeError(`entry id ${String(inlineId)} differs from options.id ${options.id}`);
    }
    if (chosen !== undefined) checkNewEntryId(chosen, this.#byId);
    this.#lock?.verify();
    const entry = {
      type,
      id: chosen ?? createEntryId({ has: (c) => this.#byId.has(c) || this.#reserved.has(c) }),
      parentId: this.#leafId,
      timestamp: timestamp ?? new Date().toISOString(),
      ...rest,
    } as SessionEntry;
    const bytes = fd === undefined ? Buffer.byteLength(serializeLine(entry)) : this.#write(fd, entry);
    const leafBefore = this.#leafId;
    this.#needsNewline = false;
    this.#entries.push(entry);
    this.#lineBytes.push(bytes);
    this.#byId.set(entry.id, entry);
    this.#sizeById.set(entry.id, bytes);
    this.#leafId = entry.id;
    if (this.#writeWhen?.(entry) === true) {
      try {
        this.write();
      } catch (error) {
        // nothing was written: the entry goes, as a failed write of a written file leaves none
        this.#entries.pop();
        this.#lineBytes.pop();
        this.#byId.delete(entry.id);
        this.#sizeById.delete(entry.id);
        this.#leafId = leafBefore;
        throw error;
      }
    }
    this.#reserved.delete(entry.id);
    return entry;
  }

  /** Durability point: fsyncs everything appended so far (nothing to do while unwritten). */
  sync(): void {
    if (this.#writeWhen !== undefined) {
      this.#unwrittenCheck();
      return;
    }
    // after a deferred write: the pool's fsync error, or file and directory synced here
    const finish = this.#finishCreation;
    this.#finishCreation = undefined;
    finish?.();
    const fd = this.#writableFd();
    this.#lock!.verify();
    fsyncSync(fd);
  }

  /**
   * Durability point off the main thread: ownership is re-checked now (a lost lock throws
   * here, as in `sync`), the fsync of everything appended so far runs on Bun's thread pool.
   * The promise settles when it is done and rejects with its error; `syncsDone` waits for
   * every one still running.
   */
  syncInBackground(): Promise<void> {
    const fd = this.#writableFd();
    this.#lock!.verify();
    const done = fsyncInBackground(this.realPath, fd);
    this.#syncing.add(done);
    const forget = () => {
      this.#syncing.delete(done);
    };
    done.then(forget, forget);
    return done;
  }

  /** Resolves once every `syncInBackground` started so far has finished, whatever its outcome. */
  async syncsDone(): Promise<void> {
    await Promise.allSettled([...this.#syncing]);
  }

  /** Releases the lock and the file; idempotent. Does not fsync (call `sync` first if needed). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    this.#lock?.release();
  }

  /** `using` support: closes the file. */
  [Symbol.dispose](): void {
    this.close();
  }

  /**
   * The entry's line written at the end ({@link writeLine}); returns its bytes. If a
   * write fails part way (disk full, file size limit), the partial bytes are cut off so
   * the next append cannot glue onto a torn line; if even that fails, the next append
   * starts on a new line.
   */
  #write(fd: number, entry: SessionEntry): number {
    // Unknown after a cut-back that failed: the file's real end is the start of this write.
    if (this.#size < 0) this.#size = fstatSync(fd).size;
    let bytes: number;
    try {
      bytes = writeLine(fd, entry, this.#needsNewline);
    } catch (error) {
      try {
        ftruncateSync(fd, this.#size);
      } catch {
        this.#needsNewline = true;
        this.#size = -1;
      }
      throw error;
    }
    this.#size += bytes;
    return bytes;
  }

  /** An unwritten session takes appends in memory; undefined is "no descriptor to write to". */
  #unwrittenCheck(): undefined {
    if (this.#closed) throw new Error(`session ${this.path} is closed`);
    return undefined;
  }

  #writableFd(): number {
    if (this.readOnly) throw new Error(`session ${this.path} is open read-only`);
    if (this.#closed || this.#fd === undefined) throw new Error(`session ${this.path} is closed`);
    return this.#fd;
  }
}

/**
 * `SyncingSession.ensureDurable` of a new session. The writer's fsync sees the same
 * writeback errors as the pool's (each descriptor opened before the data reached the
 * disk reports them), so either answer is the file's.
 */
function finishDurability(session: SessionFile, durable: Promise<void>): () => void {
  let reported: { error: unknown } | undefined;
  durable.then(
    () => {
      reported = { error: undefined };
    },
    (error: unknown) => {
      reported = { error };
    },
  );
  return () => {
    if (reported !== undefined) {
      if (reported.error !== undefined) throw reported.error;
      return;
    }
    session.sync();
    fsyncDir(dirname(session.realPath));
  };
}

/** `initialEntries` as stored: IDs chosen or generated, each the child of the previous. */
function buildInitialEntries(inputs: readonly InitialEntry[]): SessionEntry[] {
  if (inputs.length === 0) return [];
  const used = new Set<string>();
  const chosen = new Set<string>();
  for (const input of inputs) {
    const id = (input as { id?: unknown }).id;
    if (id === undefined) continue;
    checkNewEntryId(id, chosen);
    chosen.add(id);
  }
  const stamp = new Date().toISOString();
  const entries: SessionEntry[] = [];
  let parentId: string | null = null;
  for (const input of inputs) {
    const { type, timestamp, id: inlineId, ...rest } = input as InitialEntry & Record<string, unknown>;
    const id =
      typeof inlineId === "string" ? inlineId : createEntryId({ has: (c) => used.has(c) || chosen.has(c) });
    used.add(id);
    entries.push({ type, id, parentId, timestamp: timestamp ?? stamp, ...rest } as SessionEntry);
    parentId = id;
  }
  return entries;
}
