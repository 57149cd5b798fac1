import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { Api } from "../types.ts";
import type { ClientSettings } from "./shared.ts";

export type { ClientSettings };

/**
 * The vendor SDKs are loaded on first use, not when `@knightcode/ai` is imported: together
 * they are most of the package's memory and start-up time, and a process that only ever
 * talks to one vendor (or only runs the offline demo model) should not pay for the other.
 * Only the `*-runtime.ts` modules, the event readers and the SDKs themselves import an SDK
 * at run time; everything else uses `import type`.
 */

/** The OpenAI SDK and the reader for its streamed bodies, as loaded on first use. */
export type OpenAIRuntime = typeof import("./openai-runtime.ts");
/** The Anthropic SDK and the reader for its streamed bodies, as loaded on first use. */
export type AnthropicRuntime = typeof import("./anthropic-runtime.ts");

/**
 * A loader that runs `load` once and hands every caller the same promise, so concurrent
 * first requests share one import and later ones pay nothing. A failed load is forgotten,
 * so the next request tries again (and fails as a normal `error` event if it still cannot).
 */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/** The loaders the providers use; a test may replace one (e.g. with a failing import) and put it back. */
export const sdkModules = {
  openai: once<OpenAIRuntime>(() => import("./openai-runtime.ts")),
  anthropic: once<AnthropicRuntime>(() => import("./anthropic-runtime.ts")),
};

/**
 * How clients are built; retries are off because the agent loop owns retry policy. A test
 * may wrap these to count constructions.
 */
export const clientFactory = {
  openai: (sdk: OpenAIRuntime, settings: ClientSettings): OpenAI =>
    new sdk.OpenAI({ ...settings, maxRetries: 0 }),
  anthropic: (sdk: AnthropicRuntime, settings: ClientSettings): Anthropic =>
    new sdk.Anthropic({ ...settings, maxRetries: 0 }),
};

/** A small least-recently-used map: a hit moves the entry to the back, an insert past the limit drops the front. */
export class LruCache<V> {
  readonly #entries = new Map<string, V>();

  constructor(readonly limit: number) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The entry for `key`, made by `create` when there is none. */
  getOrCreate(key: string, create: () => V): V {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit;
    }
    const value = create();
    this.#entries.set(key, value);
    if (this.#entries.size > this.limit) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}

/**
 * SDK clients by (API, base URL, key, headers). A thread's requests reuse one client, and
 * with it the SDK's set-up work and connection handling; a changed key or header set makes a
 * new one. Sixteen entries cover the providers a server talks to at once, and the bound keeps
 * rotated keys from piling up.
 */
export const sdkClients = new LruCache<OpenAI | Anthropic>(16);

function clientKey(api: Api, settings: ClientSettings): string {
  const headers = Object.entries(settings.defaultHeaders).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([api, settings.baseURL, settings.apiKey, headers]);
}

/** The OpenAI SDK client for these settings, loading the SDK on first use. */
export async function openAIClient(
  api: "openai-completions" | "openai-responses",
  settings: ClientSettings,
): Promise<{ client: OpenAI; sdk: OpenAIRuntime }> {
  const sdk = await sdkModules.openai();
  const client = sdkClients.getOrCreate(clientKey(api, settings), () => clientFactory.openai(sdk, settings));
  return { client: client as OpenAI, sdk };
}

/** The Anthropic SDK client for these settings, loading the SDK on first use. */
export async function anthropicClient(
  settings: ClientSettings,
): Promise<{ client: Anthropic; sdk: AnthropicRuntime }> {
  const sdk = await sdkModules.anthropic();
  const client = sdkClients.getOrCreate(clientKey("anthropic-messages", settings), () =>
    clientFactory.anthropic(sdk, settings),
  );
  return { client: client as Anthropic, sdk };
}

/**
 * Loads the SDK behind `api` ahead of its first request (e.g. once a thread has picked its
 * model), so that request does not wait for it. Resolves either way: a failed load is
 * retried by the request and reported there as an `error` event. APIs without an SDK (the
 * demo model, registered providers) need nothing.
 */
export async function preloadSdk(api: string): Promise<void> {
  const load =
    api === "anthropic-messages"
      ? sdkModules.anthropic
      : api === "openai-completions" || api === "openai-responses"
        ? sdkModules.openai
        : undefined;
  await load?.().catch(() => undefined);
}
