/**
 * A stdio wrapper around a real MCP server (argv: tool name, server entry): passes every
 * line through and exits at once, killing the server, when a `tools/call` of that tool
 * arrives. Used to test a server that dies in the middle of a call.
 */
import { streamLines } from "./stream-lines.ts";

const [tool, entry] = process.argv.slice(2);
if (tool === undefined || entry === undefined) {
  process.stderr.write("usage: mcp-exit-on-call <tool> <server entry>\n");
  process.exit(2);
}
const server = Bun.spawn([process.execPath, entry, "stdio"], {
  stdin: "pipe",
  stdout: "inherit",
  stderr: "inherit",
});
for await (const line of streamLines(Bun.stdin.stream())) {
  const message = JSON.parse(line) as { method?: string; params?: { name?: string } };
  if (message.method === "tools/call" && message.params?.name === tool) {
    server.kill("SIGKILL");
    process.exit(3);
  }
  server.stdin.write(`${line}\n`);
}
server.stdin.end();
await server.exited;
