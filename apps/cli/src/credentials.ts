/**
 * What the terminal says about API keys, shared by `/login`, `knightcode login`, the
 * `/model` picker and failed turns: which providers take a key (the providers of
 * `model/list`, less the offline demo), and how to add one for a provider, naming the
 * `/login` command, the environment variable and the `auth.json` file the server uses.
 */
import type { AppServerClient } from "@knightcode/app-server-protocol";

/** One provider a key can be saved for, and whether one is available now. */
export interface LoginProvider {
  provider: string;
  available: boolean;
}

/** The providers of `model/list` that take a key, sorted by name. */
export async function loginProviders(client: AppServerClient): Promise<LoginProvider[]> {
  const { models } = await client.request("model/list", {});
  const byProvider = new Map<string, boolean>();
  for (const model of models) {
    if (model.api === "demo") continue;
    byProvider.set(model.provider, (byProvider.get(model.provider) ?? false) || model.available);
  }
  return [...byProvider]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([provider, available]) => ({ provider, available }));
}

/** Where the server keeps saved keys, and the environment variables it reads for `provider`. */
export async function keyPlaces(
  client: AppServerClient,
  provider: string,
): Promise<{ authFile: string | undefined; envVars: string[] }> {
  const read = await client.request("account/read", {});
  const account = read.accounts.find((a) => a.provider === provider);
  return { authFile: read.authFile, envVars: account?.envVars ?? [] };
}

/** One sentence saying how to add a key for `provider`. */
export async function credentialsHint(client: AppServerClient, provider: string): Promise<string> {
  const { authFile, envVars } = await keyPlaces(client, provider).catch(() => ({
    authFile: undefined,
    envVars: [] as string[],
  }));
  const file = authFile === undefined ? "auth.json" : authFile;
  const env = envVars.length === 0 ? "" : `, or set ${envVars.join(" or ")} in the environment`;
  return `To add a key for ${provider}: /login ${provider} (knightcode login ${provider} from a shell) saves it in ${file}${env}.`;
}
