/** Pickers over protocol listings: sessions (`thread/list`) and models (`model/list`). */
import type { AppServerClient, ProtocolModel, ThreadSummary } from "@knightcode/app-server-protocol";
import type { Choice } from "./ui/choice-prompt.ts";

/** "3m ago"-style age of an ISO time. */
export function age(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}

/** This project's sessions, newest first. */
export async function sessionChoices(
  client: AppServerClient,
  cwd: string,
  exceptId?: string,
): Promise<Choice[]> {
  const { threads } = await client.request("thread/list", { cwd, limit: 100 });
  return [...threads]
    .filter((t) => t.id !== exceptId)
    .sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt))
    .map((t: ThreadSummary) => ({
      value: t.id,
      label: (t.name ?? t.title ?? "(untitled)").replace(/\s+/g, " "),
      description: `${age(t.updatedAt)} · ${t.id.slice(0, 8)}`,
    }));
}

/** The models, available ones first. */
export async function modelChoices(
  client: AppServerClient,
  threadId?: string,
): Promise<{ choices: Choice[]; models: ProtocolModel[] }> {
  const { models } = await client.request("model/list", threadId === undefined ? {} : { threadId });
  const ordered = [...models].sort((a, b) => Number(b.available) - Number(a.available));
  return {
    models: ordered,
    choices: ordered.map((m) => ({
      value: `${m.provider}/${m.id}`,
      label: `${m.provider}/${m.id}`,
      description: `${m.name}${m.available ? "" : " (no credentials)"}`,
    })),
  };
}
