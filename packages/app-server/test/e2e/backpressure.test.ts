/**
 * Output flow control over a real `knightcode app-server` child: a reply far larger than
 * the pipe streams to a client that keeps reading (at its own pace) and arrives whole; a
 * client that stops reading is cut at the 64 MiB unread-output limit, sees stdout end,
 * and the process shuts down as on stdin EOF.
 */
import { describe, expect, test } from "bun:test";
import {
  knightcodeArgv,
  MOCK_MODEL_ID,
  MOCK_PROVIDERS,
  mockModelsJson,
  startMockModelServer,
  tempAgentDir,
} from "@knightcode/testkit";
import { E2E_TIMEOUT } from "./harness.ts";

const MODEL = { provider: MOCK_PROVIDERS.completions, id: MOCK_MODEL_ID };
const MIB = 1024 * 1024;

/** A server child with a line reader that can pause; only the lines a test asks about are parsed. */
async function start() {
  const mock = await startMockModelServer();
  const agent = await tempAgentDir({ models: mockModelsJson(mock) });
  const child = Bun.spawn(knightcodeArgv(["app-server"]), {
    cwd: agent.cwd,
    env: { ...process.env, ...agent.env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const stderrDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  let bytesRead = 0;
  /** The next line; undefined at EOF. `onChunk` runs after every read (a slow client's pause). */
  const nextLine = async (onChunk?: () => Promise<void> | undefined): Promise<string | undefined> => {
    for (;;) {
      const nl = buffered.indexOf("\n");
      if (nl !== -1) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) return undefined;
      bytesRead += value.byteLength;
      buffered += decoder.decode(value, { stream: true });
      const pause = onChunk?.();
      if (pause !== undefined) await pause;
    }
  };
  const until = async (match: (line: string) => boolean): Promise<string> => {
    for (;;) {
      const line = await nextLine();
      if (line === undefined) throw new Error(`stdout ended; stderr: ${stderr}`);
      if (match(line)) return line;
    }
  };
  const send = (message: unknown) => {
    child.stdin.write(`${JSON.stringify(message)}\n`);
    child.stdin.flush();
  };
  send({ id: 1, method: "initialize", params: { clientInfo: { name: "backpressure" } } });
  await until((l) => l.startsWith('{"id":1,'));
  send({ method: "initialized", params: {} });
  send({ id: 2, method: "thread/start", params: { cwd: agent.cwd, model: MODEL } });
  const threadId = (
    JSON.parse(await until((l) => l.startsWith('{"id":2,'))) as { result: { thread: { id: string } } }
  ).result.thread.id;
  return {
    mock,
    child,
    threadId,
    send,
    nextLine,
    until,
    bytesRead: () => bytesRead,
    stderr: () => stderr,
    async dispose() {
      child.kill("SIGKILL");
      await child.exited;
      await stderrDone;
      await mock.close();
      await agent.remove();
    },
  };
}

describe("[stdio] output backpressure", () => {
  test(
    "a 50 MiB reply streamed flat out reaches a client that keeps reading at its own pace, whole",
    async () => {
      const server = await start();
      try {
        const text = "x".repeat(50 * MIB);
        server.mock.enqueue({ steps: [{ type: "text", text, deltas: 50 * 1024 }] });
        server.send({ id: 3, method: "turn/start", params: { threadId: server.threadId, text: "go" } });
        let streamed = 0;
        let completedItemText: number | undefined;
        let completed: { status: string } | undefined;
        let lastPauseAt = 0;
        // a client slower than the server: it stops for a moment after every 2 MiB it reads
        const slow = () => {
          if (server.bytesRead() - lastPauseAt < 2 * MIB) return undefined;
          lastPauseAt = server.bytesRead();
          return Bun.sleep(20);
        };
        while (completed === undefined) {
          const line = await server.nextLine(slow);
          if (line === undefined) throw new Error(`stdout ended early; stderr: ${server.stderr()}`);
          if (line.startsWith('{"method":"item/agentMessage/delta"')) {
            streamed += (JSON.parse(line) as { params: { delta: string } }).params.delta.length;
          } else if (line.startsWith('{"method":"item/completed"')) {
            const item = (JSON.parse(line) as { params: { item: { type?: string; byteLength?: number } } })
              .params.item;
            // a 50 MiB item travels by payload reference
            if (item.type === "payloadRef") completedItemText = item.byteLength;
          } else if (line.startsWith('{"method":"turn/completed"')) {
            completed = (JSON.parse(line) as { params: { turn: { status: string } } }).params.turn;
          }
        }
        expect(completed.status).toBe("completed");
        expect(streamed).toBe(text.length);
        expect(completedItemText).toBeGreaterThan(text.length);
        expect(server.stderr()).not.toContain("aborting connection");
        // the server is still serving the same connection
        server.send({ id: 4, method: "model/list", params: {} });
        expect(await server.until((l) => l.startsWith('{"id":4,'))).toContain('"result"');
      } finally {
        await server.dispose();
      }
    },
    E2E_TIMEOUT * 2,
  );

  test(
    "a client that stops reading is cut at 64 MiB: stderr says so, stdout ends and the process exits",
    async () => {
      const server = await start();
      try {
        server.mock.enqueue({ steps: [{ type: "text", text: "x".repeat(80 * MIB), deltas: 80 * 1024 }] });
        server.send({ id: 3, method: "turn/start", params: { threadId: server.threadId, text: "go" } });
        await server.until((l) => l.startsWith('{"id":3,'));
        // from here on the client reads nothing until the process has exited
        expect(await server.child.exited).toBe(0);
        expect(server.stderr()).toContain("aborting connection");
        expect(server.stderr()).toContain("shutting down (unread output passed the 64 MiB limit)");
        let sawCompletion = false;
        for (;;) {
          const line = await server.nextLine();
          if (line === undefined) break;
          if (line.startsWith('{"method":"turn/completed"')) sawCompletion = true;
        }
        // stdout ended with far less than the reply: the rest was never written
        expect(sawCompletion).toBe(false);
        expect(server.bytesRead()).toBeLessThan(64 * MIB);
      } finally {
        await server.dispose();
      }
    },
    E2E_TIMEOUT * 2,
  );
});
