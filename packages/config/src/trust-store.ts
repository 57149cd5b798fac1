/**
 * The server-owned project trust store: `<agent-dir>/trusted-projects.json`, a JSON
 * object keyed by each project's real path with a boolean decision. Symlinked paths
 * to one project resolve to one key and so share one decision.
 */
import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { invalidParams, isErrnoCode, storageFailure } from "./errors.ts";
import { withFileLock } from "./file-lock.ts";
import {
  describeParseLocation,
  formatJson,
  parseJsonObject,
  readRawFile,
  writeFileAtomic,
} from "./json-file.ts";
import { agentPaths } from "./paths.ts";
import { projectHasLoadableResources } from "./resources.ts";
import { enqueueFileWrite } from "./write-queue.ts";

/** A project's trust state as `project/trust/read` reports it. */
export interface ProjectTrust {
  /** The recorded decision, or null when undecided. */
  trusted: boolean | null;
  /** True when `.knightcode/` holds something that would load and no decision is recorded. */
  needsTrust: boolean;
}

/** The key a project is stored under: its real path, or the resolved path when it does not exist. */
export async function trustKey(cwd: string): Promise<string> {
  try {
    return await realpath(resolve(cwd));
  } catch (error) {
    if (isErrnoCode(error, "ENOENT", "ENOTDIR")) return resolve(cwd);
    throw storageFailure(`Cannot resolve ${cwd}`, error);
  }
}

async function readDecisions(agentDir: string): Promise<Record<string, unknown>> {
  const file = await readRawFile(agentPaths(agentDir).trust);
  if (file.raw === null) return {};
  const parsed = parseJsonObject(file.raw);
  if (!parsed.ok) {
    const where = describeParseLocation(parsed.failure);
    throw storageFailure(`Trust store ${file.path} is corrupt${where}: ${parsed.failure.message}`);
  }
  return parsed.value;
}

/** The recorded decision for a project (true, false, or null when undecided); a corrupt store throws `internal`. */
export async function readTrustDecision(agentDir: string, cwd: string): Promise<boolean | null> {
  return readTrustDecisionAt(agentDir, await trustKey(cwd));
}

/**
 * The decision recorded under an already resolved `trustKey`. Callers that go on to read
 * project files resolve the key once and read below it, so a symlink swapped between
 * the trust check and the read cannot point the read at another project.
 */
export async function readTrustDecisionAt(agentDir: string, key: string): Promise<boolean | null> {
  const decisions = await readDecisions(agentDir);
  const value = Object.hasOwn(decisions, key) ? decisions[key] : undefined;
  return typeof value === "boolean" ? value : null;
}

/** `project/trust/read`: the decision and whether one is needed. */
export async function readProjectTrust(agentDir: string, cwd: string): Promise<ProjectTrust> {
  return readProjectTrustAt(agentDir, await trustKey(cwd));
}

/** `readProjectTrust` for an already resolved `trustKey`. */
export async function readProjectTrustAt(agentDir: string, key: string): Promise<ProjectTrust> {
  const trusted = await readTrustDecisionAt(agentDir, key);
  if (trusted !== null) return { trusted, needsTrust: false };
  let needsTrust: boolean;
  try {
    needsTrust = await projectHasLoadableResources(key);
  } catch (error) {
    throw storageFailure(`Cannot inspect ${key}`, error);
  }
  return { trusted: null, needsTrust };
}

/**
 * `project/trust/set`: records a decision for an existing directory (`invalidParams`
 * otherwise). The store is rewritten under its lock; a corrupt store is refused, not replaced.
 */
export async function setProjectTrust(agentDir: string, cwd: string, trusted: boolean): Promise<void> {
  if (typeof trusted !== "boolean") throw invalidParams("invalidValue", "trusted must be a boolean");
  let key: string;
  try {
    key = await realpath(resolve(cwd));
  } catch (error) {
    if (isErrnoCode(error, "ENOENT", "ENOTDIR")) {
      throw invalidParams("notADirectory", `cwd is not an existing directory: ${cwd}`);
    }
    throw storageFailure(`Cannot resolve ${cwd}`, error);
  }
  const isDirectory = await stat(key).then(
    (info) => info.isDirectory(),
    (error: unknown) => {
      throw storageFailure(`Cannot inspect ${cwd}`, error);
    },
  );
  if (!isDirectory) throw invalidParams("notADirectory", `cwd is not an existing directory: ${cwd}`);
  const path = agentPaths(agentDir).trust;
  await enqueueFileWrite(path, () =>
    withFileLock(path, async () => {
      const decisions = await readDecisions(agentDir);
      decisions[key] = trusted;
      await writeFileAtomic(path, formatJson(decisions), 0o600);
    }),
  );
}
