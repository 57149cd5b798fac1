import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { BUILT_IN_PROVIDER_ENV } from "./catalog.ts";
import { SignatureCache } from "./file-signature.ts";

/** A problem with credentials configuration (unreadable auth.json, failing `!command`). */
export class CredentialError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CredentialError";
  }
}

type Env = Record<string, string | undefined>;

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/**
 * Resolves a configured key: `!command` runs through the shell and uses its trimmed stdout;
 * a name of a set environment variable uses that variable; anything else is the literal key.
 */
export function resolveKeyValue(value: string, env: Env = process.env): string {
  if (value.startsWith("!")) {
    const command = value.slice(1);
    const child = Bun.spawnSync(["sh", "-c", command], {
      env: env as Record<string, string>,
      stderr: "pipe",
    });
    if (child.exitCode !== 0) {
      const detail = child.stderr.toString().trim();
      throw new CredentialError(
        `API key command "${command}" exited with ${child.exitCode}${detail ? `: ${detail}` : ""}`,
      );
    }
    const key = child.stdout.toString().trim();
    if (!key) throw new CredentialError(`API key command "${command}" printed nothing`);
    return key;
  }
  if (ENV_NAME.test(value)) {
    const fromEnv = env[value];
    if (fromEnv) return fromEnv;
  }
  return value;
}

/** One saved entry: a bare key string or pi's `{type: "api_key", key}` object. */
type AuthEntry = string | { type?: string; key?: string };

/** Resolves API keys for providers from auth.json, the environment and models.json. */
export class CredentialResolver {
  readonly authPath: string;
  private readonly env: Env;
  private readonly authFile: SignatureCache<Record<string, AuthEntry>>;

  constructor(options: { agentDir: string; env?: Env }) {
    this.authPath = join(options.agentDir, "auth.json");
    this.authFile = new SignatureCache(this.authPath);
    this.env = options.env ?? process.env;
  }

  /**
   * The saved entries; a missing file is empty, a malformed one is an error. The parse is
   * kept while one `stat` shows the file unchanged; callers get a copy they may change.
   */
  async readAuth(): Promise<Record<string, AuthEntry>> {
    return { ...(await this.authFile.get(() => this.parseAuthFile())) };
  }

  /**
   * What is wrong with auth.json as it is now; undefined when it reads (or is missing).
   * Key lookups treat a malformed file as holding no keys until it is fixed, so the models
   * that need no saved key stay usable; this says why the saved ones are not.
   */
  async problem(): Promise<CredentialError | undefined> {
    try {
      await this.readAuth();
      return undefined;
    } catch (error) {
      if (error instanceof CredentialError) return error;
      throw error;
    }
  }

  /** The saved entries for key lookups: none while the file is malformed (see `problem`). */
  private async savedEntries(): Promise<Record<string, AuthEntry>> {
    try {
      return await this.readAuth();
    } catch (error) {
      if (error instanceof CredentialError) return {};
      throw error;
    }
  }

  private async parseAuthFile(): Promise<Record<string, AuthEntry>> {
    let text: string;
    try {
      text = await readFile(this.authPath, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw new CredentialError(`Cannot read ${this.authPath}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new CredentialError(`Malformed ${this.authPath}: ${(error as Error).message}`, { cause: error });
    }
    if (!data || typeof data !== "object" || Array.isArray(data)) {
      throw new CredentialError(`Malformed ${this.authPath}: expected an object keyed by provider`);
    }
    return data as Record<string, AuthEntry>;
  }

  /**
   * The key for a provider: auth.json first (an explicit login wins), then the provider's
   * environment variables, then the `apiKey` from models.json.
   */
  async getApiKey(provider: string, configuredKey?: string): Promise<string | undefined> {
    const entry = (await this.savedEntries())[provider];
    const saved = typeof entry === "string" ? entry : entry?.key;
    if (saved) return resolveKeyValue(saved, this.env);
    for (const name of BUILT_IN_PROVIDER_ENV[provider] ?? []) {
      const value = this.env[name];
      if (value) return value;
    }
    if (configuredKey) return resolveKeyValue(configuredKey, this.env);
    return undefined;
  }

  /** Whether any built-in provider has a key in auth.json or the environment. */
  async hasBuiltInCredentials(): Promise<boolean> {
    const auth = await this.savedEntries();
    for (const [provider, names] of Object.entries(BUILT_IN_PROVIDER_ENV)) {
      const entry = auth[provider];
      if ((typeof entry === "string" ? entry : entry?.key) || names.some((name) => this.env[name]))
        return true;
    }
    return Object.values(auth).some((entry) => (typeof entry === "string" ? entry : entry?.key));
  }

  /** Saves a key to auth.json (mode 0600), written atomically through a temp file. */
  async saveApiKey(provider: string, key: string): Promise<void> {
    const auth = await this.readAuth();
    auth[provider] = { type: "api_key", key };
    await mkdir(dirname(this.authPath), { recursive: true });
    const temp = `${this.authPath}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(auth, null, 2)}\n`, { mode: 0o600 });
    await chmod(temp, 0o600);
    await rename(temp, this.authPath);
  }
}
