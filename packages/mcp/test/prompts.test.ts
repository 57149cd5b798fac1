/**
 * MCP prompts of real servers from npm: server-everything's prompts become commands
 * named like its tools and render through `prompts/get`; server-filesystem, which does
 * not declare the prompts capability, offers none. An SDK server over HTTP pages its
 * prompt list and announces a change with `prompts/list_changed`.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { everythingServer, filesystemServer, startMcpHttpServer } from "@knightcode/testkit";
import { run, spec, testHub } from "./support.ts";

describe("MCP prompts", () => {
  test("server-everything's prompts become mcp__everything__<prompt> with their declared arguments", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    expect(await thread.start([spec("everything", everythingServer())])).toEqual([]);
    const commands = await thread.promptCommands();
    const names = commands.map((c) => c.name);
    expect(names).toContain("mcp__everything__simple-prompt");
    const args = commands.find((c) => c.name === "mcp__everything__args-prompt")!;
    expect(args).toMatchObject({
      server: "everything",
      prompt: "args-prompt",
      description: "A prompt with two arguments, one required and one optional",
      arguments: [
        { name: "city", description: "Name of the city", required: true },
        { name: "state", required: false },
      ],
    });
    const rendered = await args.get({ city: "Oslo" });
    expect(rendered.messages).toEqual([
      { role: "user", content: { type: "text", text: expect.stringContaining("Oslo") } },
    ]);
    // the server itself refuses a render without its required argument
    await expect(args.get({})).rejects.toThrow(/city/);
    await thread.dispose();
  });

  test("a server without the prompts capability offers no prompt commands, its tools still listed", async () => {
    await using h = testHub();
    const root = mkdtempSync(join(tmpdir(), "mcp-prompts-fs-"));
    const thread = h.thread(root);
    expect(await thread.start([spec("files", filesystemServer(root))])).toEqual([]);
    expect(await thread.promptCommands()).toEqual([]);
    expect((await thread.tools()).length).toBeGreaterThan(0);
    await thread.dispose();
  });

  test("a stopped thread offers no prompt commands", async () => {
    await using h = testHub();
    const thread = h.thread(process.cwd());
    await thread.start([spec("everything", everythingServer())]);
    await thread.dispose();
    expect(await thread.promptCommands()).toEqual([]);
  });

  test("a paged prompt list is read whole, and prompts/list_changed refreshes it before the next use", async () => {
    await using server = await startMcpHttpServer();
    await using h = testHub();
    const thread = h.thread(process.cwd());
    expect(await thread.start([spec("web", { url: server.url })])).toEqual([]);
    let names = (await thread.promptCommands()).map((c) => c.name);
    expect(names).toEqual(["mcp__web__brief", "mcp__web__plain"]);
    await run(await thread.tools(), "mcp__web__reveal", {});
    names = (await thread.promptCommands()).map((c) => c.name);
    expect(names).toEqual(["mcp__web__brief", "mcp__web__plain", "mcp__web__secret-prompt"]);
    await thread.dispose();
  });
});
