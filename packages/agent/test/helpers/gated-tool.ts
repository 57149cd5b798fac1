import Type from "typebox";
import type { AgentTool } from "../../src/index.ts";
import { type Deferred, deferred } from "./deferred.ts";

/**
 * A tool whose calls each wait for `release(key)`; `started(key)` resolves when the call with
 * that key begins, and `order` records starts and ends. Calls with a `path` declare it mutated.
 */
export function gatedTool(name = "wait") {
  const started = new Map<string, Deferred<void>>();
  const gates = new Map<string, Deferred<void>>();
  const order: string[] = [];
  const get = (map: Map<string, Deferred<void>>, key: string) => {
    const found = map.get(key);
    if (found) return found;
    const created = deferred();
    map.set(key, created);
    return created;
  };
  const tool: AgentTool = {
    name,
    description: "Waits for the test to release it",
    parameters: Type.Object({ key: Type.String(), path: Type.Optional(Type.String()) }),
    mutatedPaths: (args) => {
      const { path } = args as { path?: string };
      return path ? [path] : [];
    },
    async execute(args) {
      const { key } = args as { key: string };
      order.push(`start ${key}`);
      get(started, key).resolve();
      await get(gates, key).promise;
      order.push(`end ${key}`);
      return { content: [{ type: "text", text: `released ${key}` }] };
    },
  };
  return {
    tool,
    order,
    started: (key: string) => get(started, key).promise,
    release: (key: string) => get(gates, key).resolve(),
  };
}
