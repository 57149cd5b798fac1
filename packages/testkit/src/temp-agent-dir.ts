import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Files to seed a temporary agent dir with; objects are written as JSON, strings verbatim. */
export interface TempAgentDirOptions {
  models?: unknown;
  auth?: unknown;
  settings?: unknown;
}

/** A throwaway agent dir plus a project dir beside it, removed on dispose. */
export interface TempAgentDir extends AsyncDisposable {
  /** The temp root holding everything below. */
  readonly root: string;
  /** The agent dir (what `KNIGHTCODE_CODING_AGENT_DIR` points at). */
  readonly agentDir: string;
  /** An empty project directory to use as a thread's cwd. */
  readonly cwd: string;
  readonly modelsJsonPath: string;
  readonly authJsonPath: string;
  readonly settingsJsonPath: string;
  /** Environment for a child process or config loader using this agent dir. */
  readonly env: Record<string, string>;
  /** Writes a file relative to the agent dir (JSON for non-strings), creating parent folders. */
  write(relativePath: string, content: unknown): Promise<string>;
  remove(): Promise<void>;
}

/** Creates a temp agent dir, optionally seeded with models.json, auth.json and settings.json. */
export async function tempAgentDir(options: TempAgentDirOptions = {}): Promise<TempAgentDir> {
  // realpath: macOS-style /tmp symlinks would otherwise make path assertions flaky.
  const root = await realpath(await mkdtemp(join(tmpdir(), "knightcode-test-")));
  const agentDir = join(root, "agent");
  const cwd = join(root, "project");
  await mkdir(agentDir, { recursive: true });
  await mkdir(cwd, { recursive: true });

  const write = async (relativePath: string, content: unknown) => {
    const path = join(agentDir, relativePath);
    await mkdir(join(path, ".."), { recursive: true });
    const text = typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`;
    await writeFile(path, text, { mode: relativePath === "auth.json" ? 0o600 : 0o644 });
    return path;
  };
  if (options.models !== undefined) await write("models.json", options.models);
  if (options.auth !== undefined) await write("auth.json", options.auth);
  if (options.settings !== undefined) await write("settings.json", options.settings);

  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await rm(root, { recursive: true, force: true });
  };
  return {
    root,
    agentDir,
    cwd,
    modelsJsonPath: join(agentDir, "models.json"),
    authJsonPath: join(agentDir, "auth.json"),
    settingsJsonPath: join(agentDir, "settings.json"),
    env: { KNIGHTCODE_CODING_AGENT_DIR: agentDir },
    write,
    remove,
    [Symbol.asyncDispose]: remove,
  };
}
