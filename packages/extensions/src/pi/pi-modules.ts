/**
 * Makes pi's packages resolve to KnightCode's compatibility modules in every extension,
 * under both of pi's npm scopes. pi's packages always resolve here, even when the
 * extension ships a copy (pi packages list them as peer dependencies; a shipped copy
 * would run pi's own agent instead of talking to this one). TypeBox resolves to the
 * extension's own copy when its package ships one, else to KnightCode's.
 */
import { provideToExtensions } from "../module-loader.ts";

const PI_SCOPES = ["@mariozechner", "@earendil-works"];

const PI_MODULES: Record<string, string> = {
  "pi-coding-agent": "./coding-agent.ts",
  "pi-ai": "./ai.ts",
  "pi-agent-core": "./agent-core.ts",
  "pi-tui": "./tui.ts",
};

for (const scope of PI_SCOPES) {
  for (const [name, file] of Object.entries(PI_MODULES)) {
    provideToExtensions(`${scope}/${name}`, import.meta.dir, { as: file });
  }
}
provideToExtensions("typebox", import.meta.dir, { unlessShipped: true });
provideToExtensions("@sinclair/typebox", import.meta.dir, { as: "typebox", unlessShipped: true });
