/**
 * The sidebar's thread list of one cwd: pages from `thread/list`, a search box that
 * filters the loaded rows by title, name or ID, live status badges, and the open thread
 * marked.
 */
import type { ThreadStatus, ThreadSummary } from "@knightcode/app-server-protocol";
import { h, replaceChildren } from "./dom.ts";
import { matchesSearch, statusLabel } from "./thread-search.ts";

/** The list's rows and what it draws them into. */
export class ThreadList {
  threads: ThreadSummary[] = [];
  nextCursor: string | undefined;
  openId: string | undefined;
  query = "";

  constructor(
    private readonly root: HTMLElement,
    private readonly more: HTMLButtonElement,
    private readonly onOpen: (thread: ThreadSummary) => void,
  ) {}

  /** Replaces the rows (a new cwd) or adds a page. */
  setPage(threads: ThreadSummary[], nextCursor: string | undefined, append: boolean): void {
    const known = new Set(append ? this.threads.map((thread) => thread.id) : []);
    this.threads = append ? [...this.threads, ...threads.filter((t) => !known.has(t.id))] : threads;
    this.nextCursor = nextCursor;
    this.draw();
  }

  /** A thread appeared, changed or was opened: newest first. */
  upsert(thread: ThreadSummary): void {
    this.threads = [thread, ...this.threads.filter((known) => known.id !== thread.id)];
    this.draw();
  }

  /** A status change. */
  setStatus(threadId: string, status: ThreadStatus): void {
    const thread = this.threads.find((known) => known.id === threadId);
    if (thread === undefined) return;
    thread.status = status;
    this.draw();
  }

  /** Removes a deleted thread. */
  remove(threadId: string): void {
    this.threads = this.threads.filter((known) => known.id !== threadId);
    this.draw();
  }

  draw(): void {
    const rows = this.threads
      .filter((thread) => matchesSearch(thread, this.query))
      .map((thread) =>
        h(
          "li",
          {
            class: thread.id === this.openId ? "thread-row open" : "thread-row",
            "data-thread-id": thread.id,
          },
          h(
            "button",
            { class: "thread-pick", onclick: () => this.onOpen(thread) },
            h("span", { class: "thread-title" }, thread.name ?? thread.title ?? "(untitled)"),
            h(
              "span",
              { class: "thread-meta" },
              `${new Date(thread.updatedAt).toLocaleString()} ${statusLabel(thread.status)}`,
            ),
          ),
        ),
      );
    replaceChildren(this.root, ...(rows.length > 0 ? rows : [h("li", { class: "empty" }, "No threads")]));
    this.more.hidden = this.nextCursor === undefined;
  }
}
