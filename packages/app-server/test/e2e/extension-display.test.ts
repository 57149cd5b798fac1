/**
 * Extension display calls over the protocol: `setWidget`, `setWorkingMessage` and
 * `setTitle` reach a client that declared `capabilities.extensionDialogs` as
 * `extension/widgetChanged`, `extension/workingMessageChanged` and `extension/titleChanged`,
 * in the order the extension made them; a client without the capability gets none. What
 * is displayed is replayed to a connection with the capability when it subscribes, so
 * what `session_start` set reaches the client that opened the thread.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { E2E_TIMEOUT, nextNotification, recordNotifications, startThread, TARGETS } from "./harness.ts";

const DISPLAY = join(import.meta.dir, "fixtures", "extensions", "display.ts");
const SESSION_START = join(import.meta.dir, "fixtures", "extensions", "session-start-display.ts");
const WORKING_ROW = join(import.meta.dir, "fixtures", "extensions", "working-row.ts");
const WITH_DIALOGS = { capabilities: { extensionDialogs: true } };

function extensionNotifications(seen: { method: string; params: unknown }[]) {
  return seen.filter((n) => n.method.startsWith("extension/"));
}

for (const target of TARGETS) {
  describe(`[${target.name}] extension display calls`, () => {
    test(
      "with the capability: widgets (with placement), the working message and the title arrive, and clearing sends null",
      async () => {
        await using server = await target.start({ extensions: [DISPLAY], init: WITH_DIALOGS });
        const { threadId } = await startThread(server.client, server.agent.cwd);
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
        const { threadId } = await startThread(server.client, server.agent.cwd);
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

    test(
      "session_start: the opening client counts for hasUI, gets what was displayed (not what was cleared, nor notices) once subscribed, and is not asked",
      async () => {
        await using server = await target.start({ extensions: [SESSION_START], init: WITH_DIALOGS });
        const seen = recordNotifications(server.client);
        const { threadId } = await startThread(server.client, server.agent.cwd);
        // the replay goes out as the creator subscribes, before thread/start answers
        expect(extensionNotifications(seen)).toEqual([
          { method: "extension/statusChanged", params: { threadId, key: "ui", text: "hasUI=true" } },
          {
            method: "extension/widgetChanged",
            params: { threadId, key: "banner", lines: ["welcome"], placement: "aboveEditor" },
          },
          { method: "extension/workingMessageChanged", params: { threadId, message: "Warming up" } },
          { method: "extension/titleChanged", params: { threadId, title: "started" } },
          { method: "extension/statusChanged", params: { threadId, key: "early", text: "confirmed=false" } },
        ]);
        // the dialog at session_start answered its no-answer value without asking anyone
        expect(
          server.received().some((m) => (m as { method?: string }).method === "extension/requestDialog"),
        ).toBe(false);
      },
      E2E_TIMEOUT,
    );

    test(
      "setWorkingVisible: hiding and showing the working row arrive as extension/workingVisibleChanged",
      async () => {
        await using server = await target.start({ extensions: [WORKING_ROW], init: WITH_DIALOGS });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        await server.client.request("turn/start", { threadId, text: "/quiet" });
        await server.client.request("turn/start", { threadId, text: "/loud" });
        expect(extensionNotifications(seen)).toEqual([
          { method: "extension/workingVisibleChanged", params: { threadId, visible: false } },
          { method: "extension/workingVisibleChanged", params: { threadId, visible: true } },
        ]);
      },
      E2E_TIMEOUT,
    );

    if (target.name === "in-process") {
      test(
        "a connection that subscribes later gets the current display once; one without the capability gets nothing",
        async () => {
          await using server = await target.start({ extensions: [SESSION_START] });
          const { threadId } = await startThread(server.client, server.agent.cwd);
          const shower = await server.connect!(WITH_DIALOGS);
          const plain = await server.connect!();
          const shown = recordNotifications(shower);
          const notShown = recordNotifications(plain);
          await shower.request("thread/resume", { threadId });
          await plain.request("thread/resume", { threadId });
          // the opener had no UI: session_start only set the status saying so
          expect(extensionNotifications(shown)).toEqual([
            { method: "extension/statusChanged", params: { threadId, key: "ui", text: "hasUI=false" } },
          ]);
          const later = nextNotification(shower, "extension/widgetChanged");
          await server.client.request("turn/start", { threadId, text: "/later" });
          expect(await later).toEqual({
            threadId,
            key: "later",
            lines: ["set by a command"],
            placement: "aboveEditor",
          });
          // subscribing again replays nothing new; the replay goes to the new subscriber only
          await shower.request("thread/resume", { threadId });
          expect(extensionNotifications(shown)).toHaveLength(2);
          expect(extensionNotifications(notShown)).toEqual([]);
        },
        E2E_TIMEOUT,
      );

      test(
        "a hidden working row is replayed to a connection that subscribes later; shown again, it is not",
        async () => {
          await using server = await target.start({ extensions: [WORKING_ROW], init: WITH_DIALOGS });
          const { threadId } = await startThread(server.client, server.agent.cwd);
          await server.client.request("turn/start", { threadId, text: "/quiet" });
          const first = await server.connect!(WITH_DIALOGS);
          const firstSeen = recordNotifications(first);
          await first.request("thread/resume", { threadId });
          expect(extensionNotifications(firstSeen)).toEqual([
            { method: "extension/workingVisibleChanged", params: { threadId, visible: false } },
          ]);
          await server.client.request("turn/start", { threadId, text: "/loud" });
          const second = await server.connect!(WITH_DIALOGS);
          const secondSeen = recordNotifications(second);
          await second.request("thread/resume", { threadId });
          expect(extensionNotifications(secondSeen)).toEqual([]);
        },
        E2E_TIMEOUT,
      );

      test(
        "two subscribers of one thread: only the one with the capability gets the display notifications",
        async () => {
          await using server = await target.start({ extensions: [DISPLAY] });
          const { threadId } = await startThread(server.client, server.agent.cwd);
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
