/**
 * Where transcripts go and where they are looked for. The order (`--session-dir`, then
 * `KNIGHTCODE_CODING_AGENT_SESSION_DIR`, then the `sessionDir` setting, else the
 * per-project layout) is `@knightcode/config`'s `resolveSessionDir`, the one
 * implementation in use. Terminal callers pass their project so a project `sessionDir`
 * counts (configuration.md); desktop callers use the global setting only (app-server.md).
 */
import { join } from "node:path";
import { resolveSessionDir, type SessionDirResolution } from "@knightcode/config";
import { projectDirName, projectSessionDirs, sessionsRoot } from "@knightcode/session-store";
import type { Caller } from "../api.ts";
import type { Warning } from "../shapes.ts";
import type { LoaderContext } from "./thread-loader.ts";

/** Global settings a start has already read (`ProjectSettings`). */
export interface LoadedGlobalSettings {
  globalSettings: Record<string, unknown> | null;
  globalSettingsRead?: boolean;
}

/** The directory a new transcript is created in, and what resolving it had to say. */
export interface NewSessionDir {
  dir: string;
  warnings: Warning[];
}

/** Session directories of one manager: resolution for new threads, roots for lookups and listings. */
export class SessionDirectories {
  /** Every directory a transcript may live in (flat dirs and per-project roots), grown as dirs resolve. */
  private readonly known = new Set<string>();

  constructor(private readonly ctx: LoaderContext) {
    this.known.add(sessionsRoot(ctx.agentDir));
  }

  private resolve(
    cwd: string | undefined,
    globalSettings?: Record<string, unknown> | null,
  ): Promise<SessionDirResolution> {
    return resolveSessionDir({
      agentDir: this.ctx.agentDir,
      env: this.ctx.env,
      ...(this.ctx.sessionDir !== undefined ? { flag: this.ctx.sessionDir } : {}),
      ...(cwd !== undefined ? { cwd } : {}),
      ...(globalSettings !== undefined ? { globalSettings } : {}),
    });
  }

  /**
   * The directory for a new thread of `cwd`. `projectDir` (the real path trust was
   * decided for) names the per-project folder and is what a terminal caller's project
   * `sessionDir` is read from.
   */
  async forNewThread(
    caller: Caller,
    cwd: string,
    projectDir: string,
    loaded?: LoadedGlobalSettings,
  ): Promise<NewSessionDir> {
    // A desktop start already read the global settings (their warnings are in the start's);
    // handing them over keeps settings.json to one read per start.
    const resolved =
      caller.clientKind === "terminal"
        ? await this.resolve(projectDir)
        : await this.resolve(
            undefined,
            loaded?.globalSettingsRead === true ? loaded.globalSettings : undefined,
          );
    this.known.add(resolved.dir);
    const warnings = resolved.warnings.map((w) => ({ ...w }));
    if (resolved.source !== "default") return { dir: resolved.dir, warnings };
    return { dir: join(resolved.dir, projectDirName(cwd)), warnings };
  }

  /** Re-reads the global resolution so lookups also search a `sessionDir` set since start. */
  async refresh(): Promise<void> {
    try {
      this.known.add((await this.resolve(undefined)).dir);
    } catch {
      // Unreadable settings only narrow the search to directories already known.
    }
  }

  /** Directories holding transcripts directly or in per-project folders, for lookup by ID. */
  roots(): string[] {
    return [...this.known];
  }

  /** The directories a listing scans: the caller's resolution (flat dir, or every project folder). */
  async listingDirs(caller: Caller, cwd: string | undefined): Promise<string[]> {
    const resolved = await this.resolve(caller.clientKind === "terminal" ? cwd : undefined);
    this.known.add(resolved.dir);
    return resolved.source === "default" ? projectSessionDirs(resolved.dir) : [resolved.dir];
  }
}
