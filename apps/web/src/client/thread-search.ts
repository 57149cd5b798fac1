/** What the thread list shows of a thread's status, and which threads a search keeps. */
import type { ThreadStatus, ThreadSummary } from "@knightcode/app-server-protocol";

/** The words a status shows as. */
export function statusLabel(status: ThreadStatus): string {
  if (status.type === "active")
    return status.waitingOn.length > 0 ? `waiting: ${status.waitingOn.join(", ")}` : "running";
  if (status.type === "systemError") return "error";
  return status.type === "notLoaded" ? "" : status.type;
}

/** Whether a thread matches the search words (every word somewhere in its title, name or ID). */
export function matchesSearch(thread: ThreadSummary, query: string): boolean {
  const haystack = `${thread.title ?? ""} ${thread.name ?? ""} ${thread.id}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== "")
    .every((word) => haystack.includes(word));
}
