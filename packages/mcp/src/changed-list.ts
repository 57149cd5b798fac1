/**
 * The lists a server pages and may announce as changed (tools, prompts, resources,
 * resource templates): reading every page, and refetching before the next use.
 */

/** Most pages of one list (`tools/list`, `prompts/list`) read from a server that never stops paging. */
const MAX_LIST_PAGES = 100;
/** Every page of a paged list request (`tools/list`, `prompts/list`), up to {@link MAX_LIST_PAGES}. */
export async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < MAX_LIST_PAGES; n++) {
    const result = await page(cursor);
    items.push(...result.items);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return items;
}

/**
 * A list the server may announce as changed (`notifications/tools/list_changed`, the
 * prompts' twin): refetched before its next use, one refetch at a time; a refetch that
 * fails keeps the old list and is logged.
 */
export class ChangedList {
  stale = false;
  #refreshing: Promise<void> | undefined;

  constructor(
    /** "tool list", "prompt list": what the log line names. */
    private readonly what: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Runs `fetch` once if the list went stale; callers arriving meanwhile wait for the same run. */
  async refresh(fetch: () => Promise<void>): Promise<void> {
    if (!this.stale) return;
    this.#refreshing ??= (async () => {
      this.stale = false;
      try {
        await fetch();
      } catch (error) {
        this.log(`refreshing the ${this.what} failed: ${String(error)}`);
      } finally {
        this.#refreshing = undefined;
      }
    })();
    await this.#refreshing;
  }
}
