/**
 * Keeps extensions off stdout, which carries the protocol. Every call into an extension
 * runs inside `runAsExtension`; a write to stdout (or a `console` call that would print
 * there) made from such a call goes to stderr instead, and the extension is reported
 * once with a warning naming its path.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Who is running: the extension's path and where its warning goes. */
export interface ExtensionCaller {
  path: string;
  /** Called on the extension's first write to stdout. */
  wroteToStdout(): void;
}

const current = new AsyncLocalStorage<ExtensionCaller>();
let installed = false;

const STDOUT_CONSOLE_METHODS = ["log", "info", "debug", "dir", "table"] as const;

function install(): void {
  if (installed) return;
  installed = true;
  const stdout = process.stdout as unknown as { write: (...args: unknown[]) => boolean };
  const originalWrite = stdout.write.bind(process.stdout);
  stdout.write = (...args: unknown[]) => {
    const caller = current.getStore();
    if (caller === undefined) return originalWrite(...args);
    // the report is the host's work: what it sends must not count as the extension's output
    current.exit(() => caller.wroteToStdout());
    return (process.stderr.write as (...a: unknown[]) => boolean).apply(process.stderr, args);
  };
  const target = console as unknown as Record<string, (...args: unknown[]) => void>;
  for (const name of STDOUT_CONSOLE_METHODS) {
    const original = target[name]!;
    target[name] = (...args: unknown[]) => {
      const caller = current.getStore();
      if (caller === undefined) return original.apply(console, args);
      current.exit(() => caller.wroteToStdout());
      console.error(...args);
    };
  }
}

/** Runs `fn` as code of the extension `caller`. */
export function runAsExtension<T>(caller: ExtensionCaller, fn: () => T): T {
  install();
  return current.run(caller, fn);
}

/** `fn(a, b)` as code of the extension `caller`, without a closure per call (per-delta handlers). */
export function callAsExtension<A, B, T>(caller: ExtensionCaller, fn: (a: A, b: B) => T, a: A, b: B): T {
  install();
  return current.run(caller, fn, a, b);
}

/** Runs `fn` outside any extension (host code called from an extension, e.g. an action). */
export function runAsHost<T>(fn: () => T): T {
  return current.exit(fn);
}
