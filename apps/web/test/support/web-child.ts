/**
 * A real `knightcode web` child on 127.0.0.1 (a free port), its models pointed at the
 * testkit's loopback mock, and the pairing link it printed on stderr.
 */
import {
  knightcodeArgv,
  type MockModelServer,
  mockModelsJson,
  startMockModelServer,
  type TempAgentDir,
  tempAgentDir,
} from "@knightcode/testkit";

/** A running `knightcode web`. */
export interface WebChild extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/#token=…&cwd=…`, as printed. */
  readonly link: string;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly agent: TempAgentDir;
  readonly mock: MockModelServer;
  stderr(): string;
}

/** Resolves with the first match of `pattern` in what `read` has collected, polling each chunk. */
function waitForText(
  stream: ReadableStream<Uint8Array>,
  pattern: RegExp,
  timeoutMs: number,
): { text: () => string; match: Promise<RegExpMatchArray> } {
  let text = "";
  const match = new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} on stderr within ${timeoutMs} ms:\n${text}`)),
      timeoutMs,
    );
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) {
        text += decoder.decode(chunk, { stream: true });
        const found = pattern.exec(text);
        if (found !== null) {
          clearTimeout(timer);
          resolve(found);
        }
      }
      clearTimeout(timer);
      reject(new Error(`knightcode web exited before printing its link:\n${text}`));
    })();
  });
  return { text: () => text, match };
}

/** What a test adds to the command line and the environment. */
export interface WebChildOptions {
  args?: string[];
  env?: Record<string, string>;
}

/** Starts `knightcode web` in a fresh project dir. */
export async function startWebChild(options: WebChildOptions = {}): Promise<WebChild> {
  const mock = await startMockModelServer();
  const agent = await tempAgentDir({ models: mockModelsJson(mock) });
  const child = Bun.spawn(knightcodeArgv(["web", "--listen", "ws://127.0.0.1:0", ...(options.args ?? [])]), {
    cwd: agent.cwd,
    env: { ...process.env, ...agent.env, ...options.env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const stderr = waitForText(
    child.stderr,
    /knightcode web: open (http:\/\/127\.0\.0\.1:\d+)(\/#\S+)/,
    30_000,
  );
  let found: RegExpMatchArray;
  try {
    found = await stderr.match;
  } catch (error) {
    child.kill("SIGKILL");
    await mock.close();
    await agent.remove();
    throw error;
  }
  return {
    link: `${found[1]}${found[2]}`,
    origin: found[1]!,
    agent,
    mock,
    stderr: stderr.text,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await child.exited;
      clearTimeout(timer);
      await mock.close();
      await agent.remove();
    },
  };
}
