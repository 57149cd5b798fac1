/**
 * A `knightcode app-server` child process started by a test, with its stderr collected
 * and searchable: a listener prints its URL and its token file there, and a test reads
 * them as a user would.
 */
import { knightcodeArgv } from "./knightcode-target.ts";

/** A spawned server child. */
export interface ServerChild {
  readonly child: ReturnType<typeof Bun.spawn>;
  /** Resolves with what the child wrote to stdout, once it has exited. */
  readonly stdout: Promise<string>;
  stderr(): string;
  /** The first match of `pattern` in stderr, now or later; rejects when the child exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** The listener's URL and token (ws/wss), once it has printed them. */
  listening(): Promise<{ url: string; tokenFile?: string; token?: string }>;
}

/** Spawns `knightcode app-server ...args` on the target under test (sources or binary). */
export function spawnServerChild(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): ServerChild {
  const child = Bun.spawn(knightcodeArgv(["app-server", ...args]), {
    cwd: options.cwd,
    env: options.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  let ended = false;
  const waiters: { pattern: RegExp; resolve: (m: RegExpExecArray) => void; reject: (e: Error) => void }[] =
    [];
  const settle = () => {
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(stderr);
      if (match === null && !ended) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      if (match !== null) waiter.resolve(match);
      else waiter.reject(new Error(`server exited before ${waiter.pattern}: ${stderr}`));
    }
  };
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderr += decoder.decode(chunk, { stream: true });
      settle();
    }
    ended = true;
    settle();
  })();
  const waitFor = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      waiters.push({ pattern, resolve, reject });
      settle();
    });
  return {
    child,
    stdout: new Response(child.stdout).text(),
    stderr: () => stderr,
    waitFor,
    async listening() {
      const url = (await waitFor(/listening on (\S+)\n/))[1]!;
      if (url.startsWith("unix://")) return { url };
      const tokenFile = (await waitFor(/token file (\S+)/))[1]!;
      return { url, tokenFile, token: (await Bun.file(tokenFile).text()).trim() };
    },
  };
}
