/**
 * Holds the session store's background fsyncs (`fs.fsync` from `node:fs`, on Bun's thread
 * pool) until a test releases each one, so a test can look at what callers see while the
 * disk is still busy, or make one fail. Synchronous fsyncs (`fsyncSync`) are left alone.
 * It spies on Node's module, never on ours, so the store's tests and the thread manager's
 * share it. A subpath of its own (`@knightcode/testkit/held-fsyncs`): it imports
 * `bun:test`, which the benches that use the testkit's index must not load.
 */
import { spyOn } from "bun:test";
import * as fs from "node:fs";

/** One fsync the store started, not yet run. */
export interface HeldFsync {
  fd: number;
  /** What the descriptor named when the fsync was asked for. */
  isDirectory: boolean;
  ino: number;
  /** Runs the real fsync, or answers with `error` instead. */
  release(error?: NodeJS.ErrnoException): void;
}

export interface HeldFsyncs extends Disposable {
  /** Every fsync asked for since `holdFsyncs`, in order. */
  readonly calls: HeldFsync[];
  /** Resolves once `count` fsyncs have been asked for. */
  reached(count: number): Promise<void>;
  /** Releases every held fsync not yet released (the real fsync runs). */
  releaseAll(): void;
}

/** An `EIO` as a failing disk reports it. */
export function ioError(): NodeJS.ErrnoException {
  return Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO", errno: -5, syscall: "fsync" });
}

export function holdFsyncs(): HeldFsyncs {
  const realFsync = fs.fsync;
  const calls: HeldFsync[] = [];
  const released = new Set<HeldFsync>();
  const waiters: (() => void)[] = [];
  const spy = spyOn(fs, "fsync").mockImplementation(((
    fd: number,
    callback: (error: NodeJS.ErrnoException | null) => void,
  ) => {
    const stat = fs.fstatSync(fd);
    const call: HeldFsync = {
      fd,
      isDirectory: stat.isDirectory(),
      ino: stat.ino,
      release(error) {
        if (released.has(call)) return;
        released.add(call);
        if (error) queueMicrotask(() => callback(error));
        else realFsync(fd, callback);
      },
    };
    calls.push(call);
    for (const wake of waiters.splice(0)) wake();
  }) as typeof fs.fsync);
  return {
    calls,
    reached(count) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${count} fsyncs`)), 10_000);
        const check = () => {
          if (calls.length >= count) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        check();
      });
    },
    releaseAll() {
      for (const call of calls) call.release();
    },
    [Symbol.dispose]() {
      this.releaseAll();
      spy.mockRestore();
    },
  };
}

/** One `fsyncSync` (main thread) as a spy saw it. */
export interface MainThreadFsync {
  isDirectory: boolean;
  ino: number;
}

/**
 * Records every `fsyncSync` (the main thread's fsyncs) and lets it run, or throws what
 * `fail` returns for it instead. `onCall` runs at each, to order it against other events.
 */
export function recordMainThreadFsyncs(
  options: {
    fail?: (call: MainThreadFsync) => Error | undefined;
    onCall?: (call: MainThreadFsync) => void;
  } = {},
): { readonly calls: MainThreadFsync[] } & Disposable {
  const realFsyncSync = fs.fsyncSync;
  const calls: MainThreadFsync[] = [];
  const spy = spyOn(fs, "fsyncSync").mockImplementation((fd: number) => {
    const stat = fs.fstatSync(fd);
    const call = { isDirectory: stat.isDirectory(), ino: stat.ino };
    calls.push(call);
    options.onCall?.(call);
    const error = options.fail?.(call);
    if (error) throw error;
    realFsyncSync(fd);
  });
  return { calls, [Symbol.dispose]: () => spy.mockRestore() };
}

/**
 * Lets every callback and promise job already due run (several event-loop turns); used
 * only to show that something has not happened, never to wait for something.
 */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Whether `promise` has settled once everything already due has run. */
export async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await settle();
  return settled;
}
