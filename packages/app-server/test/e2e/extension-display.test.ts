/**
 * Extension display calls over the protocol: `setWidget`, `setWorkingMessage` and
 * `setTitle` reach a client that declared `capabilities.extensionDialogs` as
 * `extension/widgetChanged`, `extension/workingMessageChanged` and `extension/titleChanged`,
 * in the order the extension made them; a client without the capability gets none.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { AppServerClient } from "@knightcode/app-server-protocol";
import { E2E_TIMEOUT, MOCK_MODEL, nextNotification, recordNotifications, TARGETS } from "./harness.ts";

const DISPLAY = join(import.meta.dir, "fixtures", "extensions", "display.ts");
const WITH_DIALOGS = { capabilities: { extensionDialogs: true } };

async function startThread(client: AppServerClient, cwd: string): Promise<string> {
  const { thread } = await client.request("thread/start", {
    cwd,
    approvalMode: "fullAccess",
    model: MOCK_MODEL,
  });
  return thread.id;
}

function extensionNotifications(seen: { method: string; params: unknown }[]) {
  return seen.filter((n) => n.method.startsWith("extension/"));
}

for (const target of TARGETS) {
  describe(`[${target.name}] extension display calls`, () => {
    test(
      "with the capability: widgets (with placement), the working message and the title arrive, and clearing sends null",
      async () => {
        await using server = await target.start({ extensions: [DISPLAY], init: WITH_DIALOGS });
        const threadId = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        expect((await server.client.request("turn/start", { threadId, text: "/show" })).status).toBe(
          "handled",
        );
        expect(extensionNotifications(seen)).toEqual([
          {
            method: "extension/widgetChanged",
            params: {
              threadId,
              key: "todo",
              lines: ["1. write the test", "2. make it pass"],
              placement: "aboveEditor",
            },
          },
          {
            method: "extension/widgetChanged",
            params: { threadId, key: "hint", lines: ["press enter"], placement: "belowEditor" },
          },
          { method: "extension/workingMessageChanged", params: { threadId, message: "Thinking deeply..." } },
          { method: "extension/titleChanged", params: { threadId, title: "knightcode - display" } },
        ]);
        seen.length = 0;
        expect((await server.client.request("turn/start", { threadId, text: "/clear" })).status).toBe(
          "handled",
        );
        expect(extensionNotifications(seen)).toEqual([
          {
            method: "extension/widgetChanged",
            params: { threadId, key: "todo", lines: null, placement: "aboveEditor" },
          },
          {
            method: "extension/widgetChanged",
            params: { threadId, key: "hint", lines: null, placement: "belowEditor" },
          },
          { method: "extension/workingMessageChanged", params: { threadId, message: null } },
        ]);
      },
      E2E_TIMEOUT,
    );

    test(
      "without the capability: none of the display notifications is sent",
      async () => {
        await using server = await target.start({ extensions: [DISPLAY] });
        const threadId = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        expect((await server.client.request("turn/start", { threadId, text: "/show" })).status).toBe(
          "handled",
        );
        expect((await server.client.request("turn/start", { threadId, text: "/clear" })).status).toBe(
          "handled",
        );
        expect(extensionNotifications(seen)).toEqual([]);
        expect(
          server.received().some((m) => (m as { method?: string }).method?.startsWith("extension/") === true),
        ).toBe(false);
      },
      E2E_TIMEOUT,
    );

    if (target.name === "in-process") {
      test(
        "two subscribers of one thread: only the one with the capability gets the display notifications",
        async () => {
          await using server = await target.start({ extensions: [DISPLAY] });
          const threadId = await startThread(server.client, server.agent.cwd);
          const shower = await server.connect!(WITH_DIALOGS);
          await shower.request("thread/resume", { threadId });
          const plain = recordNotifications(server.client);
          const shown = recordNotifications(shower);
          const titled = nextNotification(shower, "extension/titleChanged");
          expect((await server.client.request("turn/start", { threadId, text: "/show" })).status).toBe(
            "handled",
          );
          expect(await titled).toEqual({ threadId, title: "knightcode - display" });
          expect(extensionNotifications(shown).map((n) => n.method)).toEqual([
            "extension/widgetChanged",
            "extension/widgetChanged",
            "extension/workingMessageChanged",
            "extension/titleChanged",
          ]);
          expect(extensionNotifications(plain)).toEqual([]);
        },
        E2E_TIMEOUT,
      );
    }
  });
}
