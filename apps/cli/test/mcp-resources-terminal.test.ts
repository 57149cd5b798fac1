/**
 * MCP resources in the terminal, against the real `server-everything`: `@everything:`
 * completes the server's resources, and an `@everything:<uri>` mention in a message
 * sends that resource to the model with the turn (read by the server through
 * `turn/start`'s `resources`), while the typed text keeps the mention.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { everythingServer, textReply } from "@knightcode/testkit";
import { mockedAgent, requestText } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

function addEverything(agentDir: string): void {
  const path = join(agentDir, "settings.json");
  const settings = JSON.parse(readFileSync(path, "utf8"));
  writeFileSync(path, JSON.stringify({ ...settings, mcpServers: { everything: everythingServer() } }));
}

describe("MCP resources in the terminal", () => {
  test("@server: completes the server's resources, and an @server:uri mention reaches the model as context", async () => {
    await using env = await mockedAgent();
    addEverything(env.agent.agentDir);
    env.mock.enqueue(textReply("summarised"));
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("/mcp");
    await tty.waitFor(/everything stdio · global ready/);

    tty.write("Summarise @everything:arch");
    await tty.waitFor("everything:architecture.md");
    tty.write(KEYS.tab);
    await tty.waitFor("Summarise @everything:demo://resource/static/document/architecture.md");
    tty.type("and @everything:demo://resource/dynamic/text/4.");
    await tty.waitFor("summarised");
    expect(env.mock.requests.length).toBe(1);
    const sent = requestText(env.mock.requests[0]!.body);
    expect(sent).toContain(
      "Summarise @everything:demo://resource/static/document/architecture.md and @everything:demo://resource/dynamic/text/4.",
    );
    expect(sent).toContain("demo://resource/static/document/architecture.md (text/markdown)");
    expect(sent).toContain("demo://resource/dynamic/text/4 (text/plain)");
    expect(sent).toContain("Resource 4: This is a plaintext resource");
  }, 30_000);
});
