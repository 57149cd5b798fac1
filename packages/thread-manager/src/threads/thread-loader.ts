/**
 * Loading threads: settings, trust and warnings for a project, and the branch settings
 * a loaded thread resumes with.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { ThinkingLevel } from "@knightcode/ai";
import { type ApprovalMode, AppServerError, type ModelRef } from "@knightcode/app-server-protocol";
import { restoreApprovalMode } from "@knightcode/approvals/modes";
import { loadSettings } from "@knightcode/config";
import type { SessionFile } from "@knightcode/session-store";
import type { Warning } from "../shapes.ts";
import type { ThreadSettings } from "./thread-runtime.ts";

/** Paths and environment a manager was created with. */
export interface LoaderContext {
  agentDir: string;
  sessionDir: string | undefined;
  env: Record<string, string | undefined>;
}

/** Settings of a project as a new or loaded thread sees them, with the warnings they raised. */
export interface ProjectSettings {
  settings: Record<string, unknown>;
  warnings: Warning[];
  /** Whether project-local resources (SYSTEM.md, extensions...) may load. */
  trusted: boolean;
  /**
   * The project's real path, resolved once when trust was decided. Project-local files
   * (SYSTEM.md, prompts, skills) are read below this, never below the cwd resolved again.
   */
  projectDir: string;
  /** Global and (trusted only) project settings as read, for resource discovery. */
  globalSettings: Record<string, unknown> | null;
  projectSettings: Record<string, unknown> | null;
  /**
   * True when `globalSettings` is what the global `settings.json` holds (read, absent or
   * unparseable), false or missing when the read failed: only then may a new thread's
   * session directory be resolved from it instead of reading the file again.
   */
  globalSettingsRead?: boolean;
}

/** Reads settings and trust for a project; failures become warnings, never a refusal. */
export async function readProjectSettings(ctx: LoaderContext, cwd: string): Promise<ProjectSettings> {
  try {
    const loaded = await loadSettings({ agentDir: ctx.agentDir, cwd });
    const warnings: Warning[] = loaded.warnings.map((w) => ({ ...w }));
    if (
      loaded.trust.trusted === null &&
      loaded.trust.needsTrust &&
      !warnings.some((w) => w.source === "trust")
    ) {
      warnings.push({
        source: "trust",
        message: `Project ${loaded.projectDir} has local resources and no trust decision; they were not loaded`,
      });
    }
    return {
      settings: loaded.settings,
      warnings,
      trusted: loaded.trusted,
      projectDir: loaded.projectDir,
      globalSettings: loaded.globalSettings,
      projectSettings: loaded.projectSettings,
      globalSettingsRead: true,
    };
  } catch (error) {
    return {
      settings: {},
      trusted: false,
      projectDir: resolve(cwd),
      globalSettings: null,
      projectSettings: null,
      warnings: [{ source: "settings", message: `Settings could not be read: ${(error as Error).message}` }],
    };
  }
}

/** Refuses a cwd that is not an existing directory. */
export async function requireDirectory(cwd: string): Promise<void> {
  const info = await stat(cwd).catch(() => undefined);
  if (!info?.isDirectory())
    throw new AppServerError("invalidParams", `cwd is not an existing directory: ${cwd}`);
}

/** The settings persisted on a branch, with the caller's default mode when none is stored. */
export function branchSettings(session: SessionFile, defaultMode: ApprovalMode): ThreadSettings {
  const context = session.context();
  const model: ModelRef | undefined = context.model
    ? { provider: context.model.provider, id: context.model.modelId }
    : undefined;
  const stored = session.branch().some((e) => e.type === "approval_mode");
  return {
    model,
    thinkingLevel: context.thinkingLevel as ThinkingLevel,
    approvalMode: stored ? restoreApprovalMode(context.approvalMode) : defaultMode,
  };
}
