/**
 * Extension dialogs over the protocol: a client that declared
 * `capabilities.extensionDialogs` is asked `extension/requestDialog` and gets
 * `extension/notify` / `extension/statusChanged`; a client without it gets none of them
 * and the extension sees the no-UI answers; interrupting the turn cancels an open dialog.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type {
  ExtensionRequestDialogParams,
  TurnCompletedNotification,
} from "@knightcode/app-server-protocol";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { E2E_TIMEOUT, nextNotification, recordNotifications, startThread, TARGETS } from "./harness.ts";

const DIALOGS = join(import.meta.dir, "fixtures", "extensions", "dialogs.ts");
const WITH_DIALOGS = { capabilities: { extensionDialogs: true } };

function customEntries(path: string, customType: string): unknown[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; customType?: string; data?: unknown })
    .filter((e) => e.type === "custom" && e.customType === customType)
    .map((e) => e.data);
}

for (const target of TARGETS) {
  describe(`[${target.name}] extension dialogs`, () => {
    test(
      "with the capability: confirm, select and input are asked in order and answered; notify and setStatus arrive",
      async () => {
        await using server = await target.start({ extensions: [DIALOGS], init: WITH_DIALOGS });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        const asked: ExtensionRequestDialogParams[] = [];
        server.client.onRequest("extension/requestDialog", (params) => {
          asked.push(params);
          if (params.kind === "confirm") return { value: true };
          if (params.kind === "select") return { value: params.options![1]! };
          return { value: "Grace" };
        });
        const seen = recordNotifications(server.client);
        const result = await server.client.request("turn/start", { threadId, text: "/ask" });
        expect(result.status).toBe("handled");
        expect(asked).toEqual([
          { threadId, turnId: null, kind: "confirm", title: "Deploy?", message: "Ship it to production" },
          { threadId, turnId: null, kind: "select", title: "Pick a colour", options: ["red", "green"] },
          { threadId, turnId: null, kind: "input", title: "Your name", placeholder: "Ada" },
        ]);
        expect(customEntries(path, "dialog_answers")).toEqual([
          { hasUI: true, confirmed: true, choice: "green", text: "Grace" },
        ]);
        expect(seen.filter((n) => n.method.startsWith("extension/"))).toEqual([
          { method: "extension/notify", params: { threadId, message: "asked everything", type: "warning" } },
          { method: "extension/statusChanged", params: { threadId, key: "dialogs", text: "done" } },
        ]);
      },
      E2E_TIMEOUT,
    );

    test(
      "editor: asked with its title and prefill; a string answer is the text, any other answer is none",
      async () => {
        await using server = await target.start({ extensions: [DIALOGS], init: WITH_DIALOGS });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        const asked: ExtensionRequestDialogParams[] = [];
        const answers: unknown[] = [{ value: "fix: the widget\n\nit was never drawn" }, { value: true }];
        server.client.onRequest("extension/requestDialog", (params) => {
          asked.push(params);
          return answers.shift() as { value: string };
        });
        expect((await server.client.request("turn/start", { threadId, text: "/edit" })).status).toBe(
          "handled",
        );
        expect((await server.client.request("turn/start", { threadId, text: "/edit" })).status).toBe(
          "handled",
        );
        const editor: ExtensionRequestDialogParams = {
          threadId,
          turnId: null,
          kind: "editor",
          title: "Commit message",
          prefill: "fix: the widget\n\nwhy it broke",
        };
        expect(asked).toEqual([editor, editor]);
        expect(customEntries(path, "editor_answer")).toEqual([
          { text: "fix: the widget\n\nit was never drawn" },
          { text: null },
        ]);
      },
      E2E_TIMEOUT,
    );

    test(
      "answers of the wrong kind, a choice not offered, and an error reply count as no answer",
      async () => {
        await using server = await target.start({ extensions: [DIALOGS], init: WITH_DIALOGS });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        server.client.onRequest("extension/requestDialog", (params) => {
          if (params.kind === "confirm") return { value: "yes" };
          if (params.kind === "select") return { value: "blue" };
          throw new Error("the user closed the window");
        });
        await server.client.request("turn/start", { threadId, text: "/ask" });
        expect(customEntries(path, "dialog_answers")).toEqual([
          { hasUI: true, confirmed: false, choice: null, text: null },
        ]);
      },
      E2E_TIMEOUT,
    );

    test(
      "interrupting a command's dialog cancels it and the dialogs after it; the command's start answers cancelled",
      async () => {
        await using server = await target.start({ extensions: [DIALOGS], init: WITH_DIALOGS });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        const kinds: string[] = [];
        let asked: () => void = () => {};
        const opened = new Promise<void>((resolve) => {
          asked = resolve;
        });
        server.client.onRequest("extension/requestDialog", (params) => {
          kinds.push(params.kind);
          asked();
          return new Promise<never>(() => {});
        });
        const start = server.client.request("turn/start", { threadId, text: "/ask" });
        await opened;
        const cancelled = server.nextMessage((m) => m.method === "serverRequest/cancelled");
        await server.client.request("turn/interrupt", { threadId });
        await cancelled;
        expect((await start).status).toBe("cancelled");
        // only the first dialog reached the client; the later ones answered at once
        expect(kinds).toEqual(["confirm"]);
        expect(customEntries(path, "dialog_answers")).toEqual([
          { hasUI: true, confirmed: false, choice: null, text: null },
        ]);
      },
      E2E_TIMEOUT,
    );

    test(
      "without the capability: no request and no display notification; dialogs answer undefined/false and hasUI is false",
      async () => {
        await using server = await target.start({ extensions: [DIALOGS] });
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        await server.client.request("turn/start", { threadId, text: "/ask" });
        await server.client.request("turn/start", { threadId, text: "/edit" });
        expect(customEntries(path, "dialog_answers")).toEqual([
          { hasUI: false, confirmed: false, choice: null, text: null },
        ]);
        expect(customEntries(path, "editor_answer")).toEqual([{ text: null }]);
        expect(
          server.received().some((m) => (m as { method?: string }).method === "extension/requestDialog"),
        ).toBe(false);
        expect(seen.filter((n) => n.method.startsWith("extension/"))).toEqual([]);
      },
      E2E_TIMEOUT,
    );

    test(
      "interrupting the turn cancels the open dialog: serverRequest/cancelled, and the tool's confirm resolves false",
      async () => {
        await using server = await target.start({ extensions: [DIALOGS], init: WITH_DIALOGS });
        server.mock.enqueue(
          toolCallReply({ name: "ask_user", arguments: { question: "Proceed?" }, id: "call_ask" }),
          textReply("never"),
        );
        const { threadId, path } = await startThread(server.client, server.agent.cwd);
        let asked: (params: ExtensionRequestDialogParams) => void = () => {};
        const opened = new Promise<ExtensionRequestDialogParams>((resolve) => {
          asked = resolve;
        });
        server.client.onRequest("extension/requestDialog", (params) => {
          asked(params);
          return new Promise<never>(() => {});
        });
        const done = nextNotification<TurnCompletedNotification>(
          server.client,
          "turn/completed",
          (p) => p.threadId === threadId,
        );
        const started = nextNotification<{ turn: { id: string } }>(server.client, "turn/started");
        await server.client.request("turn/start", { threadId, text: "ask me" });
        const dialog = await opened;
        expect(dialog).toMatchObject({
          threadId,
          turnId: (await started).turn.id,
          kind: "confirm",
          message: "Proceed?",
        });
        const request = server
          .received()
          .find((m) => (m as { method?: string }).method === "extension/requestDialog")!;
        const cancelled = server.nextMessage(
          (m) =>
            m.method === "serverRequest/cancelled" &&
            (m.params as { requestId?: unknown } | undefined)?.requestId === (request as { id: unknown }).id,
        );
        await server.client.request("turn/interrupt", { threadId });
        await cancelled;
        expect((await done).turn.status).toBe("interrupted");
        expect(customEntries(path, "tool_answer")).toEqual([{ confirmed: false }]);
      },
      E2E_TIMEOUT,
    );
  });
}
