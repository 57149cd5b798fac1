/**
 * The production assembly behind a server: a ThreadManager over the model registry
 * (built-in models, `models.json`, credentials) and the built-in tools, plus the
 * settings/trust service, all for one agent dir. `knightcode app-server`, the
 * benchmarks and the end-to-end tests build the same host, so the in-process and the
 * child-process servers differ only in transport.
 */

import { existsSync, statSync } from "node:fs";
import {
  type AnyAgentTool,
  createBashTool,
  createEditTool,
  createFindTool,
  createGrepTool,
  createLocalOperations,
  createLsTool,
  createReadTool,
  createWriteTool,
} from "@knightcode/agent";
import {
  BUILT_IN_PROVIDER_ENV,
  CredentialResolver,
  defaultModel,
  type Model,
  ModelRegistry,
  readModelsConfig,
} from "@knightcode/ai";
import type { Warning } from "@knightcode/app-server-protocol";
import { readConfig, resolveAgentDir } from "@knightcode/config";
import {
  createThreadManager,
  type ExtensionHostFactory,
  noopExtensionHostFactory,
  type ThreadManagerApi,
} from "@knightcode/thread-manager";
import { createAccountPort } from "./account-port.ts";
import { createConfigPort } from "./config-port.ts";
import type { AccountPort, ConfigPort } from "./ports.ts";

/** Options for {@link createServerHost}. */
export interface ServerHostOptions {
  /** Defaults to `KNIGHTCODE_CODING_AGENT_DIR`, else `~/.knightcode/agent`. */
  agentDir?: string;
  /** `--session-dir`. */
  sessionDir?: string;
  /** `-e` paths, already absolute. */
  extensionPaths?: string[];
  env?: Record<string, string | undefined>;
}

/** What a server needs from its host. */
export interface ServerHost {
  agentDir: string;
  threads: ThreadManagerApi;
  config: ConfigPort;
  accounts: AccountPort;
  version: string;
  /** Releases what the host holds after the server shut down. */
  dispose(): Promise<void>;
}

/** The built-in tools for one working directory. */
export function builtInTools(cwd: string): AnyAgentTool[] {
  const env = { cwd, ops: createLocalOperations() };
  return [
    createReadTool(env),
    createWriteTool(env),
    createEditTool(env),
    createBashTool(env),
    createGrepTool(env),
    createFindTool(env),
    createLsTool(env),
  ] as AnyAgentTool[];
}

/**
 * The thread's extension host while no extension runtime exists: every `-e` path is
 * reported in the thread's start/resume warnings rather than silently ignored.
 */
export const unloadedExtensionsHostFactory: ExtensionHostFactory = async (options) => {
  const host = await noopExtensionHostFactory(options);
  const warnings: Warning[] = options.extensionPaths.map((path) => ({
    source: "extension",
    path,
    message: existsSync(path)
      ? `Extension not loaded: this server has no extension runtime yet (${path})`
      : `Extension not found: ${path}`,
  }));
  return { ...host, warnings: [...host.warnings, ...warnings] };
};

/**
 * The model registry with its merged list kept while `models.json` is unchanged. The
 * registry re-reads and re-merges `models.json` on every `list()` (so edits apply without
 * a restart), and every `find`, `available` and `getApiKey` lists afresh: twice per
 * `thread/start`. Here one `stat` decides: the same file (inode, size, mtime, ctime,
 * unchanged for a second) or the same absence reuses the last list; any change, or a
 * failed read, lists afresh.
 */
export class CachedModelRegistry extends ModelRegistry {
  private cached: { signature: string; models: Promise<Model[]> } | undefined;

  override async list(): Promise<Model[]> {
    const signature = fileSignature(this.modelsJsonPath);
    if (signature !== undefined && this.cached?.signature === signature) return this.cached.models;
    const models = super.list();
    if (signature !== undefined) {
      const entry = { signature, models };
      this.cached = entry;
      // a malformed or unreadable file is reported on every call, never remembered
      models.catch(() => {
        if (this.cached === entry) this.cached = undefined;
      });
    }
    return models;
  }

  /** Forgets the cached list (a provider registered at runtime changes it too). */
  invalidate(): void {
    this.cached = undefined;
  }

  override registerProvider(config: Parameters<ModelRegistry["registerProvider"]>[0]): void {
    super.registerProvider(config);
    this.cached = undefined;
  }

  override unregisterProvider(name: string): void {
    super.unregisterProvider(name);
    this.cached = undefined;
  }
}

/**
 * Credentials with the parsed `auth.json` kept while the file is unchanged (same stat
 * signature as for `models.json`). The resolver reads and parses the file for every
 * provider it is asked about: six reads per `thread/start` that picks the default model.
 * `!command` keys still run on every lookup, and a malformed file is an error every time.
 */
export class CachedCredentialResolver extends CredentialResolver {
  private cached: { signature: string; auth: ReturnType<CredentialResolver["readAuth"]> } | undefined;

  override async readAuth(): ReturnType<CredentialResolver["readAuth"]> {
    const signature = fileSignature(this.authPath);
    if (signature === undefined) return super.readAuth();
    let entry = this.cached;
    if (entry?.signature !== signature) {
      const fresh = { signature, auth: super.readAuth() };
      entry = fresh;
      this.cached = fresh;
      fresh.auth.catch(() => {
        if (this.cached === fresh) this.cached = undefined;
      });
    }
    // a copy: a caller adding an entry before writing the file must not change the cache
    return { ...(await entry.auth) };
  }
}

/**
 * `inode:size:mtime:ctime` of a file, `missing` when there is none; undefined when stat
 * fails otherwise, or when the file changed in the last second: file timestamps advance
 * in clock ticks, so two same-size writes within one tick could share a signature, and a
 * file that recent is read afresh instead. Synchronous on purpose: one metadata lookup
 * takes microseconds, far less than a round trip through the thread pool.
 */
function fileSignature(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    if (BigInt(Date.now() - 1000) * 1_000_000n < s.mtimeNs) return undefined;
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (error) {
    return (error as { code?: string }).code === "ENOENT" ? "missing" : undefined;
  }
}

/** Builds the ThreadManager and services for one agent dir. */
export async function createServerHost(options: ServerHostOptions = {}): Promise<ServerHost> {
  const env = options.env ?? process.env;
  const agentDir = options.agentDir ?? resolveAgentDir(env);
  const registry = new CachedModelRegistry({
    agentDir,
    env,
    credentials: new CachedCredentialResolver({ agentDir, env }),
  });
  const preferred = async (): Promise<{ provider?: string; modelId?: string }> => {
    try {
      const { settings } = await readConfig({ agentDir });
      const provider = typeof settings.defaultProvider === "string" ? settings.defaultProvider : undefined;
      const modelId = typeof settings.defaultModel === "string" ? settings.defaultModel : undefined;
      return {
        ...(provider === undefined ? {} : { provider }),
        ...(modelId === undefined ? {} : { modelId }),
      };
    } catch {
      // unreadable settings already surface as thread warnings; the default model still works
      return {};
    }
  };
  const models = {
    list: () => registry.list(),
    find: (ref: { provider: string; id: string }) => registry.find(ref.provider, ref.id),
    defaultModel: async (): Promise<Model | undefined> =>
      defaultModel(registry, registry.credentials, await preferred()),
    getApiKey: (model: Model) => registry.getApiKey(model),
    // one provider check per model, not the whole available list per model
    available: (model: Model) => registry.isAvailable(model),
  };
  const threads = createThreadManager({
    agentDir,
    env,
    models,
    tools: builtInTools,
    extensionHostFactory: unloadedExtensionsHostFactory,
    ...(options.sessionDir === undefined ? {} : { sessionDir: options.sessionDir }),
    ...(options.extensionPaths === undefined ? {} : { extensionPaths: options.extensionPaths }),
  });
  return {
    agentDir,
    threads,
    config: createConfigPort(agentDir),
    accounts: createAccountPort({
      agentDir,
      env,
      providerEnv: BUILT_IN_PROVIDER_ENV,
      readAuth: () => registry.credentials.readAuth(),
      configuredProviders: async () =>
        (await readModelsConfig(registry.modelsJsonPath)).map((c) => ({
          provider: c.name,
          hasApiKey: c.apiKey !== undefined,
        })),
    }),
    version: "0.1.0",
    dispose: async () => {},
  };
}
