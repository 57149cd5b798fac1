/**
 * `/settings`: the common settings. Thread settings (thinking level, approval mode) go
 * through `thread/settings/update`; defaults for new sessions through `config/write`.
 */
import type { ApprovalMode, ThinkingLevel } from "@knightcode/app-server-protocol";
import type { InteractiveApp } from "./interactive-app.ts";
import { markCurrent, modelChoices } from "./pickers.ts";
import { themeSettingValues } from "./theme-choice.ts";
import { style } from "./ui/style.ts";

const APPROVAL_MODES: ApprovalMode[] = ["ask", "autoEdit", "fullAccess"];

/** Opens the settings list and applies one change. */
export async function openSettings(app: InteractiveApp): Promise<void> {
  const threadId = app.session.threadId;
  const thread = app.session.thread;
  if (threadId === undefined || thread === undefined) return;
  const { models } = await modelChoices(app.client, threadId);
  const current = models.find((m) => m.provider === thread.model?.provider && m.id === thread.model?.id);
  const config = await app.client.request("config/read", { cwd: app.cwd }).catch(() => undefined);
  const defaultModel =
    typeof config?.settings.defaultProvider === "string" && typeof config.settings.defaultModel === "string"
      ? `${config.settings.defaultProvider}/${config.settings.defaultModel}`
      : undefined;
  const compaction =
    (config?.settings.compaction as { enabled?: unknown } | undefined)?.enabled === false ? "off" : "on";
  const header = config?.settings.quietStartup === true ? "off" : "on";
  const theme = typeof config?.settings.theme === "string" ? config.settings.theme : "auto";
  const pick = await app.ask("Settings (Esc to close)", [
    { value: "thinking", label: "Thinking level", description: thread.thinkingLevel ?? "off" },
    { value: "approval", label: "Approval mode", description: thread.approvalMode ?? "fullAccess" },
    {
      value: "defaultModel",
      label: "Default model for new sessions",
      description: `${defaultModel ?? "not set"} (global settings.json)`,
    },
    {
      value: "autoCompact",
      label: "Automatic compaction",
      description: `${compaction} (global settings.json)`,
    },
    {
      value: "header",
      label: "Startup header",
      description: `${header} (global settings.json: quietStartup)`,
    },
    { value: "theme", label: "Theme", description: `${theme} (global settings.json)` },
  ]);
  if ("cancelled" in pick) return;
  switch (pick.value) {
    case "thinking":
      await pickThreadSetting(
        app,
        threadId,
        "Thinking level",
        current?.thinkingLevels ?? ["off"],
        thread.thinkingLevel ?? "off",
        (level) => ({
          thinkingLevel: level as ThinkingLevel,
        }),
      );
      return;
    case "approval":
      await pickThreadSetting(
        app,
        threadId,
        "Approval mode",
        APPROVAL_MODES,
        thread.approvalMode ?? "fullAccess",
        (mode) => ({ approvalMode: mode as ApprovalMode }),
      );
      return;
    case "defaultModel": {
      const answer = await app.ask(
        "Default model",
        models.map((m) => ({
          value: `${m.provider}/${m.id}`,
          label: markCurrent(`${m.provider}/${m.id}`, defaultModel),
          description: m.name,
        })),
        { searchable: true, ...(defaultModel === undefined ? {} : { selected: defaultModel }) },
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
      const answer = await app.ask("Automatic compaction", onOff(compaction), { selected: compaction });
      if ("cancelled" in answer) return;
      await app.client.request("config/write", {
        scope: "global",
        key: "compaction.enabled",
        value: answer.value === "on",
      });
      app.view.note(style.muted(`Automatic compaction: ${answer.value}`));
      return;
    }
    case "header": {
      const answer = await app.ask("Startup header (version, model, what loaded, keys)", onOff(header), {
        selected: header,
      });
      if ("cancelled" in answer) return;
      await app.client.request("config/write", {
        scope: "global",
        key: "quietStartup",
        value: answer.value === "off",
      });
      app.view.note(style.muted(`Startup header: ${answer.value} (from the next start)`));
      return;
    }
    case "theme": {
      // the colours are chosen once at start (the background query, package colours laid
      // over ours), so a change applies from the next start rather than half now
      const values = await themeSettingValues(app.cwd);
      const answer = await app.ask(
        "Theme (auto follows the terminal's background)",
        values.map((v) => ({ value: v, label: markCurrent(v, theme) })),
        { selected: theme },
      );
      if ("cancelled" in answer) return;
      await app.client.request("config/write", { scope: "global", key: "theme", value: answer.value });
      app.view.note(style.muted(`Theme: ${answer.value} (from the next start)`));
      return;
    }
  }
}

/** Asks for one of `values` and applies it to the thread with `thread/settings/update`. */
async function pickThreadSetting(
  app: InteractiveApp,
  threadId: string,
  title: string,
  values: readonly string[],
  now: string,
  patch: (value: string) => { thinkingLevel?: ThinkingLevel; approvalMode?: ApprovalMode },
): Promise<void> {
  const answer = await app.ask(
    title,
    values.map((v) => ({ value: v, label: markCurrent(v, now) })),
    { selected: now },
  );
  if ("cancelled" in answer) return;
  const updated = await app.client.request("thread/settings/update", { threadId, ...patch(answer.value) });
  app.session.setThread(updated.thread);
  app.view.note(style.muted(`${title}: ${answer.value}`));
}

/** `on` and `off`, the one in effect marked. */
function onOff(now: string): { value: string; label: string }[] {
  return ["on", "off"].map((v) => ({ value: v, label: markCurrent(v, now) }));
}
