/**
 * `thread/archive`, `thread/unarchive` and `thread/delete`. Moves and deletes go through
 * the session store, which owns both paths and refuses collisions and hard links; this
 * file adds the thread rules: no running work, and deletion fenced against starts and
 * reloads with its checks repeated inside the fence.
 */
import { AppServerError } from "@knightcode/app-server-protocol";
import { archiveSession, deleteArchivedSession, unarchiveSession } from "@knightcode/session-store";
import type { SessionLocator } from "./session-locator.ts";
import type { ThreadRuntime } from "./thread-runtime.ts";

/** What archive operations need from the manager. */
export interface ArchiveHost {
  loaded(threadId: string): ThreadRuntime | undefined;
  isLoading(threadId: string): boolean;
  locator: SessionLocator;
  /** Thread IDs being deleted: loads and starts refuse them. */
  deleting: Set<string>;
  unload(runtime: ThreadRuntime): Promise<void>;
  deleted(threadId: string): void;
}

/** Archive, unarchive and delete over the manager's threads. */
export class ArchiveOperations {
  constructor(private readonly host: ArchiveHost) {}

  private busyCheck(threadId: string): ThreadRuntime | undefined {
    const runtime = this.host.loaded(threadId);
    if (runtime?.busy || this.host.isLoading(threadId)) {
      throw new AppServerError("turnInProgress", `Thread ${threadId} has running or admitted work`);
    }
    return runtime;
  }

  /** Moves a transcript into `archive/` or back; a loaded idle thread is unloaded first. */
  async move(threadId: string, direction: "archive" | "unarchive"): Promise<Record<string, never>> {
    const runtime = this.busyCheck(threadId);
    // a thread that never got input has no file yet: archiving keeps it, so it is written first
    if (runtime && !runtime.session.written) runtime.session.write();
    const found = this.host.locator.find(threadId);
    if (!found) throw new AppServerError("threadNotFound", `Thread ${threadId} not found`);
    if (runtime) await this.host.unload(runtime);
    const dest = direction === "archive" ? archiveSession(found.path) : unarchiveSession(found.path);
    this.host.locator.remember(threadId, dest);
    return {};
  }

  /** Permanently removes an archived transcript. */
  async delete(threadId: string): Promise<Record<string, never>> {
    const check = () => {
      const found = this.host.locator.find(threadId);
      // a loaded thread without a file yet (never used) is there, just not archived
      if (!found && this.host.loaded(threadId) !== undefined)
        throw new AppServerError("threadNotArchived", `Thread ${threadId} is not archived`);
      if (!found) throw new AppServerError("threadNotFound", `Thread ${threadId} not found`);
      if (!found.archived)
        throw new AppServerError("threadNotArchived", `Thread ${threadId} is not archived`);
      return { found, runtime: this.busyCheck(threadId) };
    };
    check();
    if (this.host.deleting.has(threadId)) {
      throw new AppServerError("threadNotFound", `Thread ${threadId} is being deleted`);
    }
    this.host.deleting.add(threadId);
    try {
      // Inside the fence no start or reload can slip in; what may have changed is checked again.
      const { found, runtime } = check();
      if (runtime) await this.host.unload(runtime);
      await deleteArchivedSession(found.path, threadId);
      this.host.locator.forget(threadId);
    } finally {
      this.host.deleting.delete(threadId);
    }
    this.host.deleted(threadId);
    return {};
  }
}
