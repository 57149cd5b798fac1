import { describe, expect, test } from "bun:test";
import { E2E_TIMEOUT, startThread, TARGETS } from "./harness.ts";

for (const target of TARGETS) {
  describe(`[${target.name}] thread/context/read`, () => {
    test(
      "answers the system prompt and tool schemas a loaded thread's next turn would send; an unknown thread is threadNotFound",
      async () => {
        await using server = await target.start();
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const context = await server.client.request("thread/context/read", { threadId });
        expect(context.systemPrompt).toContain(server.agent.cwd);
        const edit = context.tools.find((tool) => tool.name === "edit");
        expect(edit?.description).toContain("replacing text");
        expect(JSON.stringify(edit?.parameters)).toContain("oldText");
        const missing = await server.client
          .request("thread/context/read", { threadId: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" })
          .then(
            () => "answered",
            (error: { code?: string }) => error.code,
          );
        expect(missing).toBe("threadNotFound");
      },
      E2E_TIMEOUT,
    );
  });
}
