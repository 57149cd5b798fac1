/**
 * Credential hygiene for every process a tool starts: the server keeps its provider keys,
 * the processes the model drives (bash, `!` commands, rg/fd, extension `exec`) never see
 * them unless a setting (`shellEnvironment.allow`) lets a name through.
 */
import { BUILT_IN_PROVIDER_ENV } from "@knightcode/ai";

/** Variables known to hold credentials although their names match no pattern below. */
const KNOWN_CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  ...Object.values(BUILT_IN_PROVIDER_ENV).flat(),
  "AWS_ACCESS_KEY_ID",
  "AZURE_CLIENT_SECRET",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "NPM_CONFIG__AUTH",
  "NPM_CONFIG__AUTHTOKEN",
]);

// *_KEY, *_TOKEN, *_SECRET, *PASSWORD*, *_CREDENTIALS; case-insensitive because some tools
// read lowercase names (npm_config__authToken, github_token).
const CREDENTIAL_NAME_PATTERN = /(_KEY|_TOKEN|_SECRET|_CREDENTIALS)$|PASSWORD/i;

/** Whether a variable name looks like a credential. */
export function isCredentialName(name: string): boolean {
  return KNOWN_CREDENTIAL_NAMES.has(name.toUpperCase()) || CREDENTIAL_NAME_PATTERN.test(name);
}

/** `env` without undefined values and without credentials, except the names in `allow`. */
export function scrubCredentials(
  env: Readonly<Record<string, string | undefined>>,
  allow: readonly string[] = [],
): Record<string, string> {
  const allowed = new Set(allow);
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isCredentialName(name) && !allowed.has(name)) continue;
    clean[name] = value;
  }
  return clean;
}
