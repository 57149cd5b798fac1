/**
 * What the bubblewrap sandbox costs per tool call: a `bash` call running `echo` and a
 * `read` of a 1 MB file, through the real tools, on the local backend and on a thread's
 * sandbox (helper already started, as after a thread's first call). The project is a
 * small temp folder; the per-call hard-link scan of the writable area is included.
 * Targets: sandboxed `bash` adds < 15 ms per call; `read` adds < 2 ms. Also a thread's
 * first call, which starts the helper (bubblewrap plus `knightcode __sandbox-helper`),
 * from source and, when `bun run build` has made it, with the compiled binary.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bench } from "tinybench";
import { sandboxHelperCommand } from "../apps/cli/src/self-command.ts";
import { createBashTool, createLocalOperations, createReadTool } from "../packages/agent/src/index.ts";
import { createSandboxOperations, requireBubblewrap } from "../packages/sandbox/src/index.ts";

const project = realpathSync(mkdtempSync(join(tmpdir(), "sandbox-bench-")));
// 1 MB of 100-character lines: read shows the first 50 KB, but reads the whole file.
writeFileSync(join(project, "big.txt"), `${"x".repeat(99)}\n`.repeat(10_486));
const local = createLocalOperations();
const bwrap = await requireBubblewrap(process.env.PATH ?? "");
const sandboxOn = (helper = sandboxHelperCommand()) =>
  createSandboxOperations({
    bwrap,
    cwd: project,
    env: process.env,
    settings: { enabled: true, network: "off", extraWritable: [], extraReadable: [], allowGitWrites: false },
    hidden: [],
    helper,
  });
const sandboxed = sandboxOn();
const BINARY = join(import.meta.dir, "..", "dist", "knightcode");
const ctx = { signal: new AbortController().signal, onUpdate: () => {}, toolCallId: "bench" };
const tools = (ops: typeof local) => ({
  bash: createBashTool({ cwd: project, ops }),
  read: createReadTool({ cwd: project, ops }),
});
const onLocal = tools(local);
const inSandbox = tools(sandboxed);
// Start the helper outside the measurement: a thread pays that once.
await inSandbox.read.execute({ path: "big.txt" }, ctx as never);

const bench = new Bench({ time: 1500, warmupTime: 200 });
bench
  .add("bash echo: local", async () => {
    await onLocal.bash.execute({ command: "echo hi" }, ctx as never);
  })
  .add("bash echo: sandboxed", async () => {
    await inSandbox.bash.execute({ command: "echo hi" }, ctx as never);
  })
  .add("read 1 MB: local", async () => {
    await onLocal.read.execute({ path: "big.txt" }, ctx as never);
  })
  .add("read 1 MB: sandboxed", async () => {
    await inSandbox.read.execute({ path: "big.txt" }, ctx as never);
  })
  // The transport alone, without the tool's line numbering and truncation.
  .add("ops.readFile 1 MB: local", async () => {
    await local.readFile(join(project, "big.txt"));
  })
  .add("ops.readFile 1 MB: sandboxed", async () => {
    await sandboxed.readFile(join(project, "big.txt"));
  })
  .add("first call (helper start): from source", async () => {
    const fresh = sandboxOn();
    await fresh.stat(project);
    await fresh.dispose();
  });
if (existsSync(BINARY)) {
  bench.add("first call (helper start): compiled binary", async () => {
    const fresh = sandboxOn({ argv: [BINARY, "__sandbox-helper"], readable: [BINARY] });
    await fresh.stat(project);
    await fresh.dispose();
  });
}

await bench.run();
console.table(bench.table());
await sandboxed.dispose();
rmSync(project, { recursive: true, force: true });
