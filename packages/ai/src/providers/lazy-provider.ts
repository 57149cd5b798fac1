/**
 * A built-in provider whose module loads with its first request. The three HTTP providers
 * (request building, event mapping) are ~1,100 lines a server would otherwise load with
 * the model registry, before its first thread, though only a turn streams. Their SDKs
 * were already lazy (`sdk.ts`); this defers the code around them too.
 */
import { createAssistantMessageStream } from "../event-stream.ts";
import { AssistantMessageBuilder } from "../message-builder.ts";
import type { StreamFunction } from "../types.ts";

/** A stream function that loads its implementation on first use, and a way to load it early. */
export interface LazyProvider {
  stream: StreamFunction;
  /** Loads the module now; never rejects (the next request reports a failure). */
  preload(): Promise<void>;
}

/** Wraps `load`; until it resolves, each request's events are forwarded from the real stream. */
export function lazyProvider(load: () => Promise<StreamFunction>): LazyProvider {
  let loaded: StreamFunction | undefined;
  let loading: Promise<StreamFunction> | undefined;
  const get = (): Promise<StreamFunction> => {
    loading ??= load().then(
      (stream) => {
        loaded = stream;
        return stream;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  const stream: StreamFunction = (model, context, options) => {
    if (loaded !== undefined) return loaded(model, context, options);
    const { stream: out, push, ready } = createAssistantMessageStream();
    (async () => {
      let inner: ReturnType<StreamFunction>;
      try {
        inner = (await get())(model, context, options);
      } catch (error) {
        const builder = new AssistantMessageBuilder(model, push);
        builder.start();
        builder.fail(error, options?.signal);
        return;
      }
      // a built-in provider never throws and always ends with `done` or `error`
      for await (const event of inner) {
        push(event);
        await ready();
      }
    })();
    return out;
  };
  return {
    stream,
    preload: () =>
      get().then(
        () => undefined,
        () => undefined,
      ),
  };
}
