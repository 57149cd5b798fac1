/**
 * pi's component UI over the protocol: a client in another process (or any client without
 * the terminal's live component surface) cannot draw pi-tui components, so
 * `ctx.ui.setFooter` and `ctx.ui.custom()` stay inert there, each with one warning naming
 * the call, and `custom()` resolves at once (the command finishes).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { WarningNotification } from "@knightcode/app-server-protocol";
import {
  E2E_TIMEOUT,
  nextNotification,
  PI_EXAMPLES,
  recordNotifications,
  startThread,
  TARGETS,
} from "./harness.ts";

for (const target of TARGETS) {
  describe(`[${target.name}] pi's components without a terminal`, () => {
    test(
      "setFooter and custom() warn once, naming the call, and change nothing",
      async () => {
        await using server = await target.start({
          extensions: [join(PI_EXAMPLES, "custom-footer.ts"), join(PI_EXAMPLES, "overlay-test.ts")],
        });
        const { threadId } = await startThread(server.client, server.agent.cwd);
        const seen = recordNotifications(server.client);
        const footer = nextNotification<WarningNotification>(server.client, "warning", (w) =>
          w.message.startsWith("ctx.ui.setFooter "),
        );
        expect((await server.client.request("turn/start", { threadId, text: "/footer" })).status).toBe(
          "handled",
        );
        expect((await footer).message).toBe(
          "ctx.ui.setFooter draws a terminal component, which only the terminal agent shows; ignored here",
        );
        const custom = nextNotification<WarningNotification>(server.client, "warning", (w) =>
          w.message.startsWith("ctx.ui.custom "),
        );
        expect((await server.client.request("turn/start", { threadId, text: "/overlay-test" })).status).toBe(
          "handled",
        );
        expect((await custom).threadId).toBe(threadId);
        // twice more: no second warning for the same call
        await server.client.request("turn/start", { threadId, text: "/footer" });
        await server.client.request("turn/start", { threadId, text: "/footer" });
        const footerWarnings = seen.filter(
          (n) =>
            n.method === "warning" &&
            (n.params as WarningNotification).message.startsWith("ctx.ui.setFooter"),
        );
        expect(footerWarnings).toHaveLength(1);
      },
      E2E_TIMEOUT,
    );
  });
}
