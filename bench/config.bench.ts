/**
 * Config hot paths: `config/read` with a trusted project (two file reads, hash, parse,
 * migrate, merge, origins), `loadSettings` as a thread start runs it, and `config/write`
 * (queue, cross-process lock, read, edit, atomic write, re-read).
 */

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bench } from "tinybench";
import { loadSettings, readConfig, setProjectTrust, writeConfig } from "../packages/config/src/index.ts";

const root = await mkdtemp(join(tmpdir(), "knightcode-config-bench-"));
const agentDir = join(root, "agent");
const cwd = join(root, "project");
await mkdir(join(cwd, ".knightcode"), { recursive: true });
await mkdir(agentDir, { recursive: true });

// A realistic global file: a few dozen keys, nested objects, per-model overrides.
const models = Object.fromEntries(
  Array.from({ length: 20 }, (_, i) => [`provider/model-${i}.1`, { reserveTokens: 1000 + i }]),
);
const global = {
  defaultProvider: "anthropic",
  defaultModel: "claude-sonnet",
  defaultThinkingLevel: "medium",
  theme: "dark",
  queueMode: "all",
  compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000, models },
  retry: { enabled: true, maxRetries: 3, baseDelayMs: 2000, maxDelayMs: 60000 },
  extensions: ["~/ext/a.ts", "~/ext/b.ts"],
  skills: ["~/skills"],
  packages: ["npm:some-package"],
};
await writeFile(join(agentDir, "settings.json"), JSON.stringify(global, null, 2));
await writeFile(
  join(cwd, ".knightcode", "settings.json"),
  JSON.stringify({ theme: "light", retry: { maxRetries: 5 } }),
);
await setProjectTrust(agentDir, cwd, true);

let n = 0;
const bench = new Bench({ time: 500 });
bench
  .add("config/read, global + trusted project", async () => {
    await readConfig({ agentDir, cwd });
  })
  .add("loadSettings (trust + needsTrust + read + merge)", async () => {
    await loadSettings({ agentDir, cwd });
  })
  .add("config/write global key (queue + lock + atomic write)", async () => {
    await writeConfig({ agentDir, scope: "global", key: "bench.counter", value: n++ });
  });

await bench.run();
console.table(bench.table());
await rm(root, { recursive: true, force: true });
