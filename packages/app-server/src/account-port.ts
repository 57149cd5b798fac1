/**
 * `account/*` for one agent dir: which providers have credentials and where they come
 * from, and API-key login/logout through `auth.json` (written by `@knightcode/config`
 * with mode 0600 under its lock). API-key logins finish within their request, so there
 * is no pending login flow to cancel at shutdown.
 */
import { join } from "node:path";
import type { AccountStatus } from "@knightcode/app-server-protocol";
import type { AccountPort } from "./ports.ts";

/** What the port reads credentials through (the model registry's resolver and list). */
export interface AccountSources {
  agentDir: string;
  env: Record<string, string | undefined>;
  /** Built-in provider -> the environment variables that hold its key. */
  providerEnv: Readonly<Record<string, readonly string[]>>;
  /** Saved auth.json entries. */
  readAuth(): Promise<Record<string, string | { key?: string }>>;
  /** Providers configured in models.json, with whether they set an `apiKey`. */
  configuredProviders(): Promise<{ provider: string; hasApiKey: boolean }[]>;
}

/** Creates the account port; the server broadcasts `account/updated` after a login or logout. */
export function createAccountPort(sources: AccountSources): AccountPort {
  const config = () => import("@knightcode/config");
  return {
    async read() {
      const auth = await sources.readAuth();
      const configured = await sources.configuredProviders();
      const providers = new Set([...Object.keys(sources.providerEnv), ...configured.map((c) => c.provider)]);
      const accounts: AccountStatus[] = [...providers].sort().map((provider) => {
        const envVars = sources.providerEnv[provider] ?? [];
        const named = envVars.length === 0 ? {} : { envVars: [...envVars] };
        const entry = auth[provider];
        if (typeof entry === "string" ? entry : entry?.key)
          return { provider, authenticated: true, source: "authFile", ...named };
        if (envVars.some((name) => sources.env[name])) {
          return { provider, authenticated: true, source: "environment", ...named };
        }
        if (configured.some((c) => c.provider === provider && c.hasApiKey)) {
          return { provider, authenticated: true, source: "modelsJson", ...named };
        }
        return { provider, authenticated: false, ...named };
      });
      return { accounts, authFile: join(sources.agentDir, "auth.json") };
    },
    async loginApiKey(params) {
      await (await config()).setAuthCredential(sources.agentDir, params.provider, {
        type: "api_key",
        key: params.apiKey,
      });
    },
    async logout(params) {
      await (await config()).setAuthCredential(sources.agentDir, params.provider, null);
    },
    cancelPendingLogins() {},
  };
}
