/**
 * Makes pi's packages resolve to KnightCode's compatibility modules in every extension,
 * under both of pi's npm scopes, as host modules (so the compiled binary has them too).
 * pi's packages always resolve here, even when the extension ships a copy: pi packages
 * list them as peer dependencies, and a shipped copy would run pi's own agent instead of
 * talking to this one. TypeBox (`typebox`, and `@sinclair/typebox` mapped onto it)
 * resolves to the extension's own copy when its package ships one, else to KnightCode's.
 */
import { preferShippedCopy, provideModuleToExtensions } from "../module-loader.ts";

const PI_SCOPES = ["@mariozechner", "@earendil-works"];

const PI_MODULES: Record<string, () => Promise<Record<string, unknown>>> = {
  "pi-coding-agent": () => import("./coding-agent.ts"),
  "pi-ai": () => import("./ai.ts"),
  "pi-agent-core": () => import("./agent-core.ts"),
  "pi-tui": () => import("./tui.ts"),
};

for (const scope of PI_SCOPES) {
  for (const [name, load] of Object.entries(PI_MODULES)) provideModuleToExtensions(`${scope}/${name}`, load);
}
provideModuleToExtensions("@sinclair/typebox", () => import("typebox"));
provideModuleToExtensions("@sinclair/typebox/value", () => import("typebox/value"));
provideModuleToExtensions("@sinclair/typebox/compiler", () => import("typebox/compile"));
preferShippedCopy("typebox");
preferShippedCopy("@sinclair/typebox");
