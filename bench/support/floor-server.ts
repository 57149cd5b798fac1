/**
 * The cold-start bench's floor: the least a Bun-compiled process can do to answer
 * `initialize` over JSON lines on stdio. It reads stdin, answers `initialize` with a
 * result of the protocol's shape and ignores everything else, and exits when stdin
 * closes. Compiled with `scripts/build.ts`'s own options, so the gap between this row and
 * `knightcode app-server` is what KnightCode's own start costs.
 */
import { homedir } from "node:os";

const decoder = new TextDecoder();
let pending = "";
for await (const chunk of Bun.stdin.stream()) {
  pending += decoder.decode(chunk, { stream: true });
  let newline = pending.indexOf("\n");
  while (newline !== -1) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    const message = JSON.parse(line) as { id?: unknown; method?: string };
    if (message.method === "initialize") {
      const result = {
        serverInfo: { name: "floor", version: "0" },
        platform: { os: process.platform, arch: process.arch, homeDir: homedir() },
      };
      process.stdout.write(`${JSON.stringify({ id: message.id, result })}\n`);
    }
    newline = pending.indexOf("\n");
  }
}
