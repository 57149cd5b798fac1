/**
 * The manager's turn methods, loaded on first use. Building them needs the agent loop,
 * the tools, approvals' gate and the turn runner: about fifty modules from source, none
 * of which a thread/start, resume, fork or read runs. `preload` starts the load early
 * (after a thread has answered), so a prompt finds it loaded or loading.
 */
import type { TurnOperations } from "./turn-operations.ts";

/** One turn of the event loop: requests that arrived meanwhile are read and started. */
const nextTick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Loads the turn methods once; a failed load is retried by the next request. */
export class LazyTurns {
  private loading: Promise<TurnOperations> | undefined;
  private loaded: TurnOperations | undefined;

  constructor(
    private readonly load: () => Promise<TurnOperations>,
    /**
     * Parts of the load's module graph to load first, one per turn of the event loop.
     * Evaluating modules holds the thread; in parts, a request that arrives during the
     * preload waits for one part (the approvals package, say), not for the whole graph.
     */
    private readonly preloadParts: readonly (() => Promise<unknown>)[] = [],
  ) {}

  /** The turn methods, loading them on the first call. */
  get(): Promise<TurnOperations> {
    if (this.loading === undefined) {
      const loading = this.load();
      this.loading = loading;
      loading.then(
        (turns) => {
          this.loaded = turns;
        },
        () => {
          if (this.loading === loading) this.loading = undefined;
        },
      );
    }
    return this.loading;
  }

  /**
   * Runs `method` on the turn methods: at once when they are loaded (a request then runs
   * exactly as it did before any of this was lazy), else once the load finishes.
   */
  use<T>(method: (turns: TurnOperations) => Promise<T>): Promise<T> {
    return this.loaded === undefined ? this.get().then(method) : method(this.loaded);
  }

  /**
   * Starts the load in the background, from the next turn of the event loop, part by part;
   * a failure surfaces on the request that needs the turn methods.
   */
  preload(): void {
    void (async () => {
      for (const part of this.preloadParts) {
        await nextTick();
        if (this.loading !== undefined) return;
        await part().catch(() => {});
      }
      await nextTick();
      this.get().catch(() => {});
    })();
  }
}
