/**
 * The `config/*` and `project/trust/*` methods backed by `@knightcode/config` for one
 * agent dir. The package is imported on first use, which keeps it off the start-up path.
 */
import type { ConfigPort } from "./ports.ts";

/** Settings and trust of `agentDir`; config errors carry their wire codes already. */
export function createConfigPort(agentDir: string): ConfigPort {
  const config = () => import("@knightcode/config");
  return {
    read: async (params) => (await config()).readConfig({ agentDir, ...params }),
    write: async (params) => (await config()).writeConfig({ agentDir, ...params }),
    readTrust: async (params) => (await config()).readProjectTrust(agentDir, params.cwd),
    setTrust: async (params) => (await config()).setProjectTrust(agentDir, params.cwd, params.trusted),
  };
}
