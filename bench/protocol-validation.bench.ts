/**
 * Warm request validation with the pre-compiled validators: what every request pays
 * once the functions are compiled. A small `thread/start`, one that carries every nested
 * part (model, MCP servers), a `turn/start` with images, and an invalid `thread/start`
 * (errors collected through the parts and turned into issues).
 */
import { Bench } from "tinybench";
import { validateRequestParams } from "../packages/app-server-protocol/src/index.ts";

const threadId = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
const full = {
  cwd: "/home/user/project",
  approvalMode: "autoEdit",
  model: { provider: "anthropic", id: "claude-sonnet" },
  thinkingLevel: "medium",
  name: "a thread",
  mcpServers: {
    files: { command: "npx", args: ["-y", "server-files", "/tmp"], env: { A: "1" }, tools: ["read"] },
    web: { url: "https://example.com/mcp", headers: { Authorization: "x" }, startTimeoutMs: 5000 },
  },
};
const invalid = {
  cwd: "",
  approvalMode: "nope",
  model: { provider: "" },
  mcpServers: { bad: { command: "", args: [1], extra: true } },
};
const turn = {
  threadId,
  text: "hello",
  images: [{ path: "/a.png" }, { mimeType: "image/png", data: "aGVsbG8=" }],
};

for (const [method, params, ok] of [
  ["thread/start", { cwd: "/p" }, true],
  ["thread/start", full, true],
  ["thread/start", invalid, false],
  ["turn/start", turn, true],
] as const) {
  if (validateRequestParams(method, params)?.ok !== ok) throw new Error(`${method}: expected ok=${ok}`);
}

const bench = new Bench({ time: 300 });
bench
  .add("thread/start {cwd}", () => {
    validateRequestParams("thread/start", { cwd: "/p" });
  })
  .add("thread/start, every nested part", () => {
    validateRequestParams("thread/start", full);
  })
  .add("thread/start, invalid (12 issues)", () => {
    validateRequestParams("thread/start", invalid);
  })
  .add("turn/start with two images", () => {
    validateRequestParams("turn/start", turn);
  });

await bench.run();
console.table(bench.table());
