/**
 * Input rules: `?quick <question>` becomes a request for a brief answer, and `ping`
 * is answered by the extension itself (`handled`: no model request at all).
 */
import type { ExtensionAPI } from "@knightcode/extensions";

export default function inputTransform(knightcode: ExtensionAPI) {
  knightcode.on("input", (event, ctx) => {
    if (event.text.trim() === "ping") {
      ctx.ui.notify("pong", "info");
      knightcode.appendEntry("ping", { answered: "pong" });
      return { action: "handled" as const };
    }
    if (event.text.startsWith("?quick ")) {
      return { action: "transform" as const, text: `Answer in one sentence: ${event.text.slice(7)}` };
    }
    return { action: "continue" as const };
  });
}
