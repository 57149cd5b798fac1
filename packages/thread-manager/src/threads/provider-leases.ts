/**
 * Which loaded threads hold each provider their extensions registered with the shared
 * model source (pi's `registerProvider`). The model source is one for the whole server, so
 * a provider stays while any thread that registered it is loaded, and leaves with the last
 * one: its unload, its `unregisterProvider`, or a `/reload` that no longer registers it.
 */
import type { ProviderConfig } from "@knightcode/ai";
import type { ModelSource } from "./model-source.ts";

export class ProviderLeases {
  private readonly holders = new Map<string, Set<string>>();

  constructor(private readonly models: () => ModelSource | undefined) {}

  /**
   * Makes `providers` the ones thread `threadId` holds now (it held `before`): new and
   * updated configurations are registered, names it dropped are released. Returns the names held.
   */
  update(threadId: string, before: ReadonlySet<string>, providers: readonly ProviderConfig[]): Set<string> {
    const names = new Set(providers.map((provider) => provider.name));
    for (const name of before) if (!names.has(name)) this.release(threadId, name);
    for (const provider of providers) {
      this.models()?.registerProvider?.(provider);
      const set = this.holders.get(provider.name) ?? new Set<string>();
      set.add(threadId);
      this.holders.set(provider.name, set);
    }
    return names;
  }

  /** The thread unloaded: every provider it held is released. */
  releaseAll(threadId: string, held: ReadonlySet<string>): void {
    for (const name of held) this.release(threadId, name);
  }

  private release(threadId: string, name: string): void {
    const set = this.holders.get(name);
    set?.delete(threadId);
    if (set && set.size > 0) return;
    this.holders.delete(name);
    this.models()?.unregisterProvider?.(name);
  }
}
