/**
 * `config/write`: one dotted-key edit of the global or a trusted project settings
 * file. Writes to a file go through the process-wide queue for that file and then the
 * cross-process lock; the version check, migrations, edit and write all happen under
 * that lock, and the returned version is read back from disk afterwards.
 */
import { deleteAtPath, findForbiddenKey, isPlainObject, parseDottedKey, setAtPath } from "./dotted-key.ts";
import { configConflict, invalidParams } from "./errors.ts";
import { withFileLock } from "./file-lock.ts";
import { formatJson, objectToRewrite, readRawFile, writeFileAtomic } from "./json-file.ts";
import type { SettingsScope } from "./merge.ts";
import { migrateSettings } from "./migrations.ts";
import { agentPaths, projectPaths } from "./paths.ts";
import { readTrustDecisionAt, trustKey } from "./trust-store.ts";
import { enqueueFileWrite } from "./write-queue.ts";

/** `config/write` params plus the agent dir. */
export interface WriteConfigOptions {
  agentDir: string;
  scope: SettingsScope;
  key: string;
  /** `null` deletes the leaf. */
  value: unknown;
  cwd?: string;
  /** Refuse with `configConflict` unless the file's current hash (or "none") equals this. */
  expectedVersion?: string;
}

/** The `config/write` result: the file's version after the write. */
export interface ConfigWriteResult {
  version: string;
}

/** `config/write`. Throws `ConfigError` with `invalidParams`, `configConflict` or `internal`. */
export async function writeConfig(options: WriteConfigOptions): Promise<ConfigWriteResult> {
  const { scope, key, value, expectedVersion } = options;
  if (scope !== "global" && scope !== "project") {
    throw invalidParams("invalidScope", `scope must be "global" or "project"`);
  }
  const segments = parseDottedKey(key);
  checkValue(value);
  const path = await settingsPathFor(options);
  return enqueueFileWrite(path, () =>
    withFileLock(path, async () => {
      const file = await readRawFile(path);
      if (expectedVersion !== undefined && expectedVersion !== file.version) {
        throw configConflict(file.version);
      }
      const settings = objectToRewrite(file);
      const migrated = migrateSettings(settings);
      if (value === null) {
        // Deleting what is not there leaves the file (and its version) exactly as it was.
        if (!deleteAtPath(settings, segments) && !migrated) return { version: file.version };
      } else {
        setAtPath(settings, segments, structuredClone(value));
      }
      const next = formatJson(settings);
      if (next !== file.raw) await writeFileAtomic(path, next);
      return { version: (await readRawFile(path)).version };
    }),
  );
}

async function settingsPathFor(options: WriteConfigOptions): Promise<string> {
  if (options.scope === "global") return agentPaths(options.agentDir).settings;
  const { cwd } = options;
  if (cwd === undefined || cwd === "") {
    throw invalidParams("missingCwd", "Project settings writes need a cwd");
  }
  const key = await trustKey(cwd);
  if ((await readTrustDecisionAt(options.agentDir, key)) !== true) {
    throw invalidParams("untrusted", `Project ${cwd} is not trusted; its settings cannot be written`);
  }
  return projectPaths(key).settings;
}

/**
 * Deepest nesting of arrays and objects a settings value may have. Settings are a few
 * levels deep; a value nested thousands deep would cost the pretty-printed file
 * quadratic space (its indentation) and the recursive checks their stack.
 */
export const MAX_SETTINGS_VALUE_DEPTH = 64;

/** Whether `value` nests arrays/objects deeper than `limit`; iterative, so any depth is safe to ask about. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

function checkValue(value: unknown): void {
  if (value === undefined) throw invalidParams("invalidValue", "value is required (null deletes the key)");
  if (nestsDeeperThan(value, MAX_SETTINGS_VALUE_DEPTH)) {
    throw invalidParams("invalidValue", `value nests deeper than ${MAX_SETTINGS_VALUE_DEPTH} levels`);
  }
  const forbidden = findForbiddenKey(value);
  if (forbidden !== null) {
    throw invalidParams("prototypePollution", `value holds the forbidden key "${forbidden}"`);
  }
  if (!isJsonValue(value)) throw invalidParams("invalidValue", "value must be plain JSON");
}

function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (isPlainObject(value)) {
    const proto = Object.getPrototypeOf(value);
    return (proto === Object.prototype || proto === null) && Object.values(value).every(isJsonValue);
  }
  return false;
}
