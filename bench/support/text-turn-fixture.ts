/**
 * What the thread-manager-level benches share: a temp root with an empty project, the
 * testkit mock answering every request with one text reply of `deltas` deltas, and a
 * Chat Completions model pointed at it.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Model } from "../../packages/ai/src/index.ts";
import { type MockModelServer, startMockModelServer } from "../../packages/testkit/src/index.ts";

export interface TextTurnFixture {
  root: string;
  cwd: string;
  mock: MockModelServer;
  model: Model;
}

export async function textTurnFixture(prefix: string, deltas: number): Promise<TextTurnFixture> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const cwd = join(root, "project");
  await Bun.write(join(cwd, ".keep"), "");
  const mock = await startMockModelServer();
  mock.setDefault({ steps: [{ type: "text", text: "word ".repeat(deltas), deltas }] });
  const model: Model = {
    id: "bench-model",
    name: "Bench",
    api: "openai-completions",
    provider: "bench",
    baseUrl: mock.baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 1_000_000,
    maxTokens: 4096,
    thinkingLevels: ["off"],
  };
  return { root, cwd, mock, model };
}
