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

/**
 * The part of a thread ID that tells sessions apart: its last 8 hex digits. The IDs are
 * UUIDv7, whose first 12 digits are the creation time, so sessions started in the same
 * second or minute share their start; the end is random.
 */
export function distinctIdPart(id: string): string {
  return id.replace(/-/g, "").slice(-8);
}

/**
 * This project's sessions, newest first: the distinguishing part of the ID, the age
 * and message count in a fixed column, then the name or first message in all the width
 * left. Search matches all of it and the whole ID.
 */
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
      label: sessionMeta(t),
      description: (t.name ?? t.title ?? "(untitled)").replace(/\s+/g, " "),
    }));
}

/** `a1b2c3d4  3m ago  12 msgs`, padded to one width so the titles line up. */
function sessionMeta(thread: ThreadSummary): string {
  const count =
    thread.messageCount === undefined
      ? ""
      : `${thread.messageCount} msg${thread.messageCount === 1 ? "" : "s"}`;
  return `${distinctIdPart(thread.id)}  ${age(thread.updatedAt).padStart(7)}  ${count.padStart(8)}`;
}

/** The models, available ones first; `current` (`provider/id`) is marked. */
export async function modelChoices(
  client: AppServerClient,
  threadId?: string,
  current?: string,
): Promise<{ choices: Choice[]; models: ProtocolModel[] }> {
  const { models } = await client.request("model/list", threadId === undefined ? {} : { threadId });
  const ordered = [...models].sort((a, b) => Number(b.available) - Number(a.available));
  return {
    models: ordered,
    choices: ordered.map((m) => ({
      value: `${m.provider}/${m.id}`,
      label: markCurrent(`${m.provider}/${m.id}`, current),
      description: `${m.name}${m.available ? "" : " (no credentials)"}`,
    })),
  };
}

/** `label ●` for the value in effect now, so a picker shows what it would change. */
export function markCurrent(value: string, current: string | undefined): string {
  return value === current ? `${value} ●` : value;
}
