/**
 * `/persona <text>` adds a line to the system prompt of every later turn of this
 * thread; `/persona` alone clears it. The choice is stored as a custom entry, so it
 * survives a reload of the thread.
 */
import type { ExtensionAPI } from "@knightcode/extensions";

export default function systemPromptCommand(knightcode: ExtensionAPI) {
  let persona: string | undefined;
  knightcode.on("session_start", (_event, ctx) => {
    for (const entry of ctx.sessionManager.getBranch()) {
      if (entry.type === "custom" && entry.customType === "persona") {
        persona = (entry.data as { text?: string } | undefined)?.text || undefined;
      }
    }
  });
  knightcode.registerCommand("persona", {
    description: "Add a line to the system prompt (empty clears it)",
    handler: (args) => {
      persona = args.trim() || undefined;
      knightcode.appendEntry("persona", { text: persona ?? "" });
    },
  });
  knightcode.on("before_agent_start", (event) =>
    persona ? { systemPrompt: `${event.systemPrompt}\n\n${persona}` } : undefined,
  );
}
