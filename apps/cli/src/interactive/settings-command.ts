/**
 * `/settings`: the common settings. Thread settings (thinking level, approval mode) go
 * through `thread/settings/update`; defaults for new sessions through `config/write`.
 */
import type { ApprovalMode, ThinkingLevel } from "@knightcode/app-server-protocol";
import type { InteractiveApp } from "./interactive-app.ts";
import { modelChoices } from "./pickers.ts";
import { style } from "./ui/style.ts";

const APPROVAL_MODES: ApprovalMode[] = ["ask", "autoEdit", "fullAccess"];

/** Opens the settings list and applies one change. */
export async function openSettings(app: InteractiveApp): Promise<void> {
  const threadId = app.session.threadId;
  const thread = app.session.thread;
  if (threadId === undefined || thread === undefined) return;
  const { models } = await modelChoices(app.client, threadId);
  const current = models.find((m) => m.provider === thread.model?.provider && m.id === thread.model?.id);
  const pick = await app.ask("Settings (Esc to close)", [
    { value: "thinking", label: "Thinking level", description: thread.thinkingLevel ?? "off" },
    { value: "approval", label: "Approval mode", description: thread.approvalMode ?? "fullAccess" },
    { value: "defaultModel", label: "Default model for new sessions", description: "global settings.json" },
    { value: "autoCompact", label: "Automatic compaction", description: "global settings.json" },
  ]);
  if ("cancelled" in pick) return;
  switch (pick.value) {
    case "thinking": {
      const levels: ThinkingLevel[] = current?.thinkingLevels ?? ["off"];
      const answer = await app.ask(
        "Thinking level",
        levels.map((l) => ({ value: l, label: l })),
      );
      if ("cancelled" in answer) return;
      const updated = await app.client.request("thread/settings/update", {
        threadId,
        thinkingLevel: answer.value as ThinkingLevel,
      });
      app.session.setThread(updated.thread);
      app.view.note(style.muted(`Thinking level: ${answer.value}`));
      return;
    }
    case "approval": {
      const answer = await app.ask(
        "Approval mode",
        APPROVAL_MODES.map((m) => ({ value: m, label: m })),
      );
      if ("cancelled" in answer) return;
      const updated = await app.client.request("thread/settings/update", {
        threadId,
        approvalMode: answer.value as ApprovalMode,
      });
      app.session.setThread(updated.thread);
      app.view.note(style.muted(`Approval mode: ${answer.value}`));
      return;
    }
    case "defaultModel": {
      const answer = await app.ask(
        "Default model",
        models.map((m) => ({
          value: `${m.provider}/${m.id}`,
          label: `${m.provider}/${m.id}`,
          description: m.name,
        })),
        { searchable: true },
      );
      if ("cancelled" in answer) return;
      const slash = answer.value.indexOf("/");
      await app.client.request("config/write", {
        scope: "global",
        key: "defaultProvider",
        value: answer.value.slice(0, slash),
      });
      await app.client.request("config/write", {
        scope: "global",
        key: "defaultModel",
        value: answer.value.slice(slash + 1),
      });
      app.view.note(style.muted(`Default model: ${answer.value}`));
      return;
    }
    case "autoCompact": {
      const answer = await app.ask("Automatic compaction", [
        { value: "on", label: "on" },
        { value: "off", label: "off" },
      ]);
      if ("cancelled" in answer) return;
      await app.client.request("config/write", {
        scope: "global",
        key: "compaction.enabled",
        value: answer.value === "on",
      });
      app.view.note(style.muted(`Automatic compaction: ${answer.value}`));
      return;
    }
  }
}
