/**
 * MCP resources against the real `server-everything` from npm: `mcpServer/list` shows a
 * ready server's resources and resource templates, `mcpServer/resource/read` reads a
 * static document and a templated one, and a `turn/start` naming resources sends their
 * text to the mock model, headed by server, URI and MIME type. Unknown servers, failed
 * servers and URIs the server refuses are `invalidParams`, and no turn starts.
 */
import { describe, expect, test } from "bun:test";
import type { TurnCompletedNotification } from "@knightcode/app-server-protocol";
import { textReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, nextNotification, refusal, TARGETS } from "./harness.ts";
import { everythingThread } from "./mcp-everything.ts";

const DOCUMENT = "demo://resource/static/document/architecture.md";

for (const target of TARGETS) {
  describe(`[${target.name}] MCP resources`, () => {
    test(
      "mcpServer/resource/read reads server-everything's resources; mcpServer/list lists them and its templates",
      async () => {
        await using server = await target.start();
        const { threadId, warnings } = await everythingThread(server.client, server.agent.cwd);
        expect(warnings).toEqual([]);
        const { servers } = await server.client.request("mcpServer/list", { threadId });
        const everything = servers.find((s) => s.name === "everything")!;
        expect(everything.resources).toContainEqual({
          uri: DOCUMENT,
          name: "architecture.md",
          description: expect.any(String),
          mimeType: "text/markdown",
        });
        expect(everything.resourceTemplates?.map((t) => t.uriTemplate)).toContain(
          "demo://resource/dynamic/text/{resourceId}",
        );

        const document = await server.client.request("mcpServer/resource/read", {
          threadId,
          server: "everything",
          uri: DOCUMENT,
        });
        expect(document.contents).toHaveLength(1);
        expect(document.contents[0]).toMatchObject({ uri: DOCUMENT, mimeType: "text/markdown" });
        expect((document.contents[0] as { text: string }).text.length).toBeGreaterThan(100);

        const templated = await server.client.request("mcpServer/resource/read", {
          threadId,
          server: "everything",
          uri: "demo://resource/dynamic/text/7",
        });
        expect(templated.contents[0]).toMatchObject({
          mimeType: "text/plain",
          text: expect.stringContaining("Resource 7: This is a plaintext resource"),
        });
        const blob = await server.client.request("mcpServer/resource/read", {
          threadId,
          server: "everything",
          uri: "demo://resource/dynamic/blob/2",
        });
        const data = (blob.contents[0] as { blob: string }).blob;
        expect(Buffer.from(data, "base64").toString()).toContain("Resource 2: This is a base64 blob");
      },
      E2E_TIMEOUT,
    );

    test(
      "mcpServer/resource/read: an unknown thread is threadNotFound; an unknown server, a failed one and a refused URI are invalidParams",
      async () => {
        await using server = await target.start();
        const { client } = server;
        const { threadId } = await everythingThread(client, server.agent.cwd, {
          broken: { command: "knightcode-no-such-mcp-server" },
        });
        const read = (params: { threadId?: string; server: string; uri: string }) =>
          refusal(client.request("mcpServer/resource/read", { threadId, ...params }));
        expect((await read({ threadId: "no-such-thread", server: "everything", uri: DOCUMENT })).code).toBe(
          "threadNotFound",
        );
        const unknown = await read({ server: "nobody", uri: DOCUMENT });
        expect(unknown).toEqual({
          code: "invalidParams",
          message: 'The thread has no MCP server named "nobody"',
        });
        const failed = await read({ server: "broken", uri: DOCUMENT });
        expect(failed.code).toBe("invalidParams");
        expect(failed.message).toStartWith('MCP server "broken" is failed');
        const refused = await read({ server: "everything", uri: "demo://resource/nowhere" });
        expect(refused.code).toBe("invalidParams");
        expect(refused.message).toStartWith('MCP server "everything" could not read demo://resource/nowhere');
      },
      E2E_TIMEOUT,
    );

    test(
      "turn/start with resources sends each resource's text to the model, headed by server, URI and MIME type",
      async () => {
        await using server = await target.start();
        const { client, mock } = server;
        const { threadId } = await everythingThread(client, server.agent.cwd);
        mock.enqueue(textReply("read it"));
        const done = nextNotification<TurnCompletedNotification>(
          client,
          "turn/completed",
          (p) => p.threadId === threadId,
        );
        const started = await client.request("turn/start", {
          threadId,
          text: "Summarise these",
          resources: [
            { server: "everything", uri: DOCUMENT },
            { server: "everything", uri: "demo://resource/dynamic/text/3" },
          ],
        });
        expect(started.status).toBe("started");
        expect((await done).turn.status).toBe("completed");
        const body = mock.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
        const user = JSON.stringify(body.messages.filter((m) => m.role === "user").at(-1)?.content);
        expect(user).toContain("Summarise these");
        expect(user).toContain(`MCP resource from server \\"everything\\": ${DOCUMENT} (text/markdown)`);
        expect(user).toContain("demo://resource/dynamic/text/3 (text/plain)");
        expect(user).toContain("Resource 3: This is a plaintext resource");
        expect(user.indexOf("Summarise these")).toBeLessThan(user.indexOf(DOCUMENT));

        // a resource that cannot be read refuses the start: nothing reaches the model
        const before = mock.requests.length;
        const refused = await refusal(
          client.request("turn/start", {
            threadId,
            text: "And this",
            resources: [{ server: "everything", uri: "demo://resource/nowhere" }],
          }),
        );
        expect(refused.code).toBe("invalidParams");
        expect(mock.requests.length).toBe(before);
        const { thread } = await client.request("thread/read", { threadId });
        expect(thread.status).toEqual({ type: "idle" });
      },
      E2E_TIMEOUT,
    );
  });
}
