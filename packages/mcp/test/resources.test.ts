/**
 * Resources of a thread's servers: server-everything's static documents and templates
 * over stdio, and the testkit's SDK server over HTTP, whose resource list comes in two
 * pages and grows after its `reveal` tool announces `resources/list_changed` (fetched
 * again before the next status). server-filesystem offers no resources capability here
 * and lists none.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { everythingServer, filesystemServer, startMcpHttpServer } from "@knightcode/testkit";
import { run, spec, testHub } from "./support.ts";

describe("MCP resources", () => {
  test("server-everything lists its documents and templates and reads them; a server without resources lists none", async () => {
    await using h = testHub();
    const root = mkdtempSync(join(tmpdir(), "knightcode-res-"));
    try {
      const thread = h.thread(root);
      expect(
        await thread.start([spec("everything", everythingServer()), spec("files", filesystemServer(root))]),
      ).toEqual([]);
      const [everything, files] = thread.status();
      expect(everything!.resources?.map((r) => r.uri)).toContain(
        "demo://resource/static/document/features.md",
      );
      expect(everything!.resourceTemplates?.map((t) => t.uriTemplate)).toEqual([
        "demo://resource/dynamic/text/{resourceId}",
        "demo://resource/dynamic/blob/{resourceId}",
      ]);
      expect(files!.resources ?? []).toEqual([]);
      const read = await thread.connectionOf("everything")!.readResource("demo://resource/dynamic/text/9");
      expect(read.contents[0]).toMatchObject({ text: expect.stringContaining("Resource 9:") });
      await thread.dispose();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("the HTTP server's resources come in two pages and are listed again after resources/list_changed", async () => {
    await using server = await startMcpHttpServer();
    await using h = testHub();
    const thread = h.thread(process.cwd());
    expect(await thread.start([spec("web", { url: server.url })])).toEqual([]);
    expect(thread.status()[0]!.resources).toEqual([
      { uri: "test://readme", name: "readme", mimeType: "text/markdown" },
    ]);
    expect(thread.status()[0]!.resourceTemplates).toEqual([
      { uriTemplate: "test://items/{id}", name: "item", mimeType: "text/plain" },
    ]);
    await run(await thread.tools(), "mcp__web__reveal", {});
    await thread.refreshResources();
    expect(thread.status()[0]!.resources?.map((r) => r.uri)).toEqual([
      "test://readme",
      "test://secret-notes",
    ]);
    const item = await thread.connectionOf("web")!.readResource("test://items/42");
    expect(item.contents).toEqual([{ uri: "test://items/42", mimeType: "text/plain", text: "item 42" }]);
    await thread.dispose();
  });
});
