/**
 * Writing `auth.json` (saved API keys and OAuth credentials) and reading and writing
 * `tools.json` (web tool and scratchpad settings, including the Brave Search key). Both
 * hold secrets, so every write creates or rewrites them with mode 0600, through the
 * per-file queue and lock. Reading auth.json for the model registry is the ai package's.
 */
import { FORBIDDEN_SEGMENTS, findForbiddenKey } from "./dotted-key.ts";
import { invalidParams } from "./errors.ts";
import { withFileLock } from "./file-lock.ts";
import {
  formatJson,
  objectToRewrite,
  parseFailureWarning,
  parseJsonObject,
  readRawFile,
  writeFileAtomic,
} from "./json-file.ts";
import { agentPaths } from "./paths.ts";
import { scrubWithWarnings } from "./settings-file.ts";
import type { ConfigWarning } from "./warning.ts";
import { enqueueFileWrite } from "./write-queue.ts";

/** File mode of every secret-holding file. */
export const SECRET_FILE_MODE = 0o600;

/** One saved credential, in the shape the ai package reads back. */
export type AuthCredential =
  | { type: "api_key"; key: string }
  | { type: "oauth"; access: string; refresh?: string; expires?: number; [extra: string]: unknown };

/** Saves (or with null removes) one provider's credential; creates `auth.json` with mode 0600. */
export async function setAuthCredential(
  agentDir: string,
  provider: string,
  credential: AuthCredential | null,
): Promise<void> {
  if (provider === "" || FORBIDDEN_SEGMENTS.has(provider)) {
    throw invalidParams("malformedKey", `Invalid provider name "${provider}"`);
  }
  refuseForbiddenKeys(credential);
  await updateSecretFile(agentPaths(agentDir).auth, (data) => {
    if (credential === null) delete data[provider];
    else data[provider] = credential;
  });
}

/** Reads `tools.json` as a settings object; a malformed file or a prototype-chain key becomes a warning. */
export async function readToolsFile(
  agentDir: string,
): Promise<{ tools: Record<string, unknown>; warnings: ConfigWarning[] }> {
  const path = agentPaths(agentDir).tools;
  const file = await readRawFile(path);
  if (file.raw === null) return { tools: {}, warnings: [] };
  const parsed = parseJsonObject(file.raw);
  if (!parsed.ok) return { tools: {}, warnings: [parseFailureWarning(path, parsed.failure)] };
  const warnings = scrubWithWarnings(path, parsed.value);
  return { tools: parsed.value, warnings };
}

/** Replaces one top-level section of `tools.json` (null removes it); the file stays mode 0600. */
export async function setToolsSection(agentDir: string, section: string, value: unknown): Promise<void> {
  if (section === "" || FORBIDDEN_SEGMENTS.has(section)) {
    throw invalidParams("malformedKey", `Invalid tools.json section "${section}"`);
  }
  refuseForbiddenKeys(value);
  await updateSecretFile(agentPaths(agentDir).tools, (data) => {
    if (value === null) delete data[section];
    else data[section] = structuredClone(value);
  });
}

/** Read-modify-write of a secret JSON file under its queue and lock; corrupt content is never replaced. */
async function updateSecretFile(path: string, edit: (data: Record<string, unknown>) => void): Promise<void> {
  await enqueueFileWrite(path, () =>
    withFileLock(path, async () => {
      const file = await readRawFile(path);
      const data = objectToRewrite(file);
      edit(data);
      await writeFileAtomic(path, formatJson(data), SECRET_FILE_MODE);
    }),
  );
}

function refuseForbiddenKeys(value: unknown): void {
  const forbidden = findForbiddenKey(value);
  if (forbidden !== null) {
    throw invalidParams("prototypePollution", `value holds the forbidden key "${forbidden}"`);
  }
}
