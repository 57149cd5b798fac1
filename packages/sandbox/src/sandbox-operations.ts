/**
 * The bubblewrap backend of `ToolOperations`: every file operation and process of one
 * thread runs inside that thread's sandbox, through a helper process (helper-main.ts)
 * started lazily in bubblewrap and restarted when it dies or its mounts must change.
 */
import { existsSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import {
  type SpawnRequest,
  type SpawnResult,
  scrubCredentials,
  type ToolOperations,
} from "@knightcode/agent";
import { SandboxUnavailableError } from "./errors.ts";
import { encodeFrameHead, type Frame, FrameReader } from "./frames.ts";
import { hardLinkedOutside } from "./hard-links.ts";
import { linkedGitMounts } from "./linked-git-dir.ts";
import { bwrapArgs, exposedHomeSecrets, type MountPlanInput, type RootEntry } from "./mount-plan.ts";
import { insidePath } from "./paths.ts";
import type { SandboxSettings } from "./settings.ts";

/** What a thread's sandbox is built from. */
export interface SandboxOperationsOptions {
  /** The bwrap executable, already probed (see `requireBubblewrap`). */
  bwrap: string;
  /** The thread's cwd, mounted read-write at the same path. */
  cwd: string;
  /** The server's environment; the sandbox gets it without credentials. */
  env: Readonly<Record<string, string | undefined>>;
  /** `shellEnvironment.allow`. */
  allowEnv?: readonly string[];
  settings: SandboxSettings;
  /** Folders that must stay invisible: the agent dir and every session dir. */
  hidden: readonly string[];
  /** How to start the helper inside (see {@link SandboxHelperCommand}). */
  helper: SandboxHelperCommand;
}

/**
 * How the in-sandbox helper (helper-main.ts) is started, given by whoever knows how this
 * program runs: a compiled `knightcode` re-runs itself (`knightcode __sandbox-helper`),
 * from source it is Bun and a script. This package never guesses it from its own
 * location, which inside a compiled binary is a virtual `/$bunfs/` folder.
 */
export interface SandboxHelperCommand {
  /** The command line that runs the helper, as it reads inside the sandbox. */
  argv: string[];
  /** Host paths it needs (the executable; from source also Bun, the sources and node_modules), shown read-only. */
  readable: string[];
}

/** Tool operations inside a sandbox, released with `dispose`. */
export interface SandboxOperations extends ToolOperations {
  dispose(): Promise<void>;
}

/** A hard-link scan this fast runs before every process. */
const CHEAP_SCAN_MS = 25;
/** Otherwise processes rescan at most this often (the helper's start always scans). */
const RESCAN_INTERVAL_MS = 30_000;

interface Pending {
  resolve(frame: Frame): void;
  reject(error: Error): void;
  onStdout?(chunk: Uint8Array): void;
  onStderr?(chunk: Uint8Array): void;
}

const isDir = (path: string) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
const isFile = (path: string) => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

/** One running helper inside bubblewrap. */
class Helper {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private exitError: Error | undefined;
  readonly ready: Promise<void>;

  private constructor(
    private readonly child: Bun.Subprocess<"pipe", "pipe", "pipe">,
    readonly readOnly: string[],
  ) {
    let stderr = "";
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) if (stderr.length < 8192) stderr += decoder.decode(chunk);
    })();
    let markReady: () => void = () => {};
    let failStart: (error: Error) => void = () => {};
    this.ready = new Promise<void>((ok, fail) => {
      markReady = ok;
      failStart = fail;
    });
    void (async () => {
      const reader = new FrameReader();
      let broken: string | undefined;
      try {
        for await (const chunk of child.stdout) {
          for (const frame of reader.push(chunk)) {
            if (frame.header.type === "ready") markReady();
            else this.dispatch(frame);
          }
        }
      } catch (error) {
        // The helper shares the sandbox with the commands it runs; should its stream ever
        // be garbled, that ends this helper (the next call starts a fresh one), never the server.
        broken = (error as Error).message;
        child.kill("SIGKILL");
      }
      const code = await child.exited;
      const detail = broken
        ? `its output was not valid frames (${broken})`
        : stderr.trim() || `exit code ${code}`;
      this.exitError = new SandboxUnavailableError("startFailed", `the sandbox helper exited: ${detail}.`);
      failStart(this.exitError);
      for (const waiter of this.pending.values()) waiter.reject(this.exitError);
      this.pending.clear();
    })();
  }

  static start(args: string[], env: Record<string, string>, readOnly: string[]): Helper {
    const child = Bun.spawn(args, { stdin: "pipe", stdout: "pipe", stderr: "pipe", env });
    return new Helper(child, readOnly);
  }

  get alive(): boolean {
    return this.exitError === undefined;
  }

  private dispatch(frame: Frame): void {
    const waiter = this.pending.get(frame.header.id as number);
    if (!waiter) return;
    switch (frame.header.type) {
      case "stdout":
        waiter.onStdout?.(frame.payload);
        return;
      case "stderr":
        waiter.onStderr?.(frame.payload);
        return;
      case "error": {
        this.pending.delete(frame.header.id as number);
        const error = new Error(frame.header.message as string) as NodeJS.ErrnoException;
        if (typeof frame.header.code === "string") error.code = frame.header.code;
        waiter.reject(error);
        return;
      }
      default:
        this.pending.delete(frame.header.id as number);
        waiter.resolve(frame);
    }
  }

  /** Sends one operation; resolves with its result frame. */
  call(
    header: Record<string, unknown>,
    payload?: Uint8Array,
    streams: Pick<Pending, "onStdout" | "onStderr"> = {},
  ): { id: number; done: Promise<Frame> } {
    const id = this.nextId++;
    const done = new Promise<Frame>((resolvePromise, reject) => {
      if (this.exitError) {
        reject(this.exitError);
        return;
      }
      this.pending.set(id, { resolve: resolvePromise, reject, ...streams });
      this.send({ ...header, id }, payload);
    });
    return { id, done };
  }

  send(header: Record<string, unknown>, payload?: Uint8Array): void {
    try {
      this.child.stdin.write(encodeFrameHead(header, payload?.length ?? 0));
      if (payload && payload.length > 0) this.child.stdin.write(payload);
      void this.child.stdin.flush();
    } catch {
      // The helper is gone; its exit rejects what is pending.
    }
  }

  async stop(): Promise<void> {
    try {
      this.child.stdin.end();
    } catch {
      // already closed
    }
    this.child.kill("SIGKILL");
    await this.child.exited;
  }
}

/** Creates the sandboxed operations of one thread. The helper starts on first use. */
export function createSandboxOperations(options: SandboxOperationsOptions): SandboxOperations {
  const allow = options.allowEnv ?? [];
  const home = options.env.HOME ?? userInfo().homedir;
  const PATH = options.env.PATH ?? "/usr/bin:/bin";
  const env = { ...scrubCredentials(options.env, allow), HOME: home, TMPDIR: "/tmp" };
  const writable = [options.cwd, ...options.settings.extraWritable.filter(isDir)];
  const homes = [...new Set([home, userInfo().homedir])].filter(isDir);
  const exposed = exposedHomeSecrets(homes, writable);
  const plan = (readOnly: string[]): MountPlanInput => ({
    cwd: options.cwd,
    homes,
    hidden: [...new Set([...options.hidden.filter(isDir), ...exposed.filter(isDir)])],
    hiddenFiles: exposed.filter(isFile),
    extraWritable: writable.slice(1),
    readable: options.settings.extraReadable,
    // shown even when they live below the hidden home
    runtime: options.helper.readable,
    gitPaths: options.settings.allowGitWrites
      ? []
      : writable.map((root) => join(root, ".git")).filter((p) => existsSync(p)),
    readOnly,
    linkedGit: linkedGitMounts(writable, options.settings.allowGitWrites),
    network: options.settings.network,
    ...(options.settings.workspace === undefined
      ? {}
      : { workspace: options.settings.workspace, rootEntries: hostRootEntries() }),
  });
  // Refuse an unsafe plan now, so the thread starts with the sandbox reported unavailable;
  // every start checks its own plan again (the hard-link mounts change it).
  bwrapArgs(plan([]));
  // Tools name host paths; inside, the cwd may sit at the workspace path instead.
  const at = (path: string) => insidePath(path, options.cwd, options.settings.workspace);

  let helper: Helper | undefined;
  let starting: Promise<Helper> | undefined;
  let disposed = false;

  const start = async (readOnly: string[]): Promise<Helper> => {
    if (disposed) throw new Error("This thread's sandbox was released.");
    const next = Helper.start(
      [options.bwrap, ...bwrapArgs(plan(readOnly)), "--", ...options.helper.argv],
      env,
      readOnly,
    );
    await next.ready;
    return next;
  };
  /** The running helper; with `rescan`, restarted when the hard-link mounts changed. */
  // The last hard-link scan: when it was cheap, every process rescans; a project with a
  // large hard-linked tree (bun's node_modules) rescans at most every RESCAN_INTERVAL_MS.
  let scannedAt = 0;
  let scanMs = 0;
  const scan = async (): Promise<string[]> => {
    const began = Date.now();
    // a linked worktree's object store is written too (a local clone hard-links objects)
    const found = await hardLinkedOutside([
      ...writable,
      ...linkedGitMounts(writable, options.settings.allowGitWrites).writable,
    ]);
    scannedAt = Date.now();
    scanMs = scannedAt - began;
    return found;
  };
  const scanDue = () => scanMs <= CHEAP_SCAN_MS || Date.now() - scannedAt >= RESCAN_INTERVAL_MS;
  const running = async (rescan = false): Promise<Helper> => {
    while (starting) await starting.catch(() => undefined);
    const readOnly = (rescan && scanDue()) || !helper?.alive ? await scan() : undefined;
    if (helper?.alive && (readOnly === undefined || same(readOnly, helper.readOnly))) return helper;
    const old = helper;
    helper = undefined;
    starting = (async () => {
      await old?.stop();
      return start(readOnly ?? []);
    })();
    try {
      helper = await starting;
      return helper;
    } finally {
      starting = undefined;
    }
  };
  const call = async (header: Record<string, unknown>, payload?: Uint8Array) =>
    (await running()).call(header, payload).done;
  const value = async <T>(header: Record<string, unknown>): Promise<T> =>
    (await call(header)).header.value as T;
  const bytes = (data: string | Uint8Array) =>
    typeof data === "string" ? new TextEncoder().encode(data) : data;

  return {
    readFile: async (path) => (await call({ op: "readFile", path: at(path) })).payload,
    writeFile: async (path, data) => {
      await call({ op: "writeFile", path: at(path) }, bytes(data));
    },
    appendFile: async (path, data) => {
      await call({ op: "appendFile", path: at(path) }, bytes(data));
    },
    stat: async (path) =>
      (await value<ReturnType<ToolOperations["stat"]> | null>({ op: "stat", path: at(path) })) ?? undefined,
    mkdir: async (path) => {
      await call({ op: "mkdir", path: at(path) });
    },
    readdir: (path) => value({ op: "readdir", path: at(path) }),
    which: async (name) => (await value<string | null>({ op: "which", name, PATH })) ?? undefined,
    tempDir: () => "/tmp",
    homeDir: () => home,
    shell: () => ({ file: Bun.which("bash", { PATH }) ?? "/bin/sh", args: ["-c"] }),
    spawn: async (request: SpawnRequest): Promise<SpawnResult> => {
      if (request.signal?.aborted) return { exitCode: null, signal: null, timedOut: false, aborted: true };
      const target = await running(true);
      // The abort may have come while the sandbox was starting.
      if (request.signal?.aborted) return { exitCode: null, signal: null, timedOut: false, aborted: true };
      const { id, done } = target.call(
        {
          op: "spawn",
          file: request.file,
          args: request.args,
          cwd: at(request.cwd),
          env: scrubCredentials({ ...env, ...request.env }, allow),
          ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
        },
        undefined,
        {
          ...(request.onStdout ? { onStdout: request.onStdout } : {}),
          ...(request.onStderr ? { onStderr: request.onStderr } : {}),
        },
      );
      const onAbort = () => target.send({ op: "abort", target: id });
      request.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        return (await done).header.value as SpawnResult;
      } finally {
        request.signal?.removeEventListener("abort", onAbort);
      }
    },
    dispose: async () => {
      disposed = true;
      await starting?.catch(() => undefined);
      await helper?.stop();
      helper = undefined;
    },
  };
}

function hostRootEntries(): RootEntry[] {
  return readdirSync("/", { withFileTypes: true }).map((entry) =>
    entry.isSymbolicLink()
      ? { name: entry.name, symlink: readlinkSync(join("/", entry.name)) }
      : { name: entry.name },
  );
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
