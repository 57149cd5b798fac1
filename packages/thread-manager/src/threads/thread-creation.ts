/**
 * Creating threads: `thread/start`, `thread/fork` and the session-replacing commands
 * (`/new`, `/fork`) all make a transcript in the directory `SessionDirectories` picks,
 * adopt it as a loaded thread and announce it with `thread/started`. Subscribing is the
 * caller's business (a replacement moves every subscriber of the old thread). The new
 * transcript's fsyncs run on the thread pool while it is adopted; the thread is
 * registered, announced and answered only once the file is durable, checked without
 * an await (`ensureDurable`), so no other queued work runs before the answer.
 */
import { join, relative } from "node:path";
import type { Model } from "@knightcode/ai";
import { AppServerError, type McpServers, type ThreadStartParams } from "@knightcode/app-server-protocol";
import { defaultApprovalMode } from "@knightcode/approvals/modes";
import { setProjectTrust } from "@knightcode/config";
import type { SessionFile, SessionWorktree, SyncingSession } from "@knightcode/session-store";
import type { Caller, ThreadManagerEvent } from "../api.ts";
import type { Warning } from "../shapes.ts";
import type { WorktreeRecord } from "../worktrees/ownership.ts";
import { claimWorktree, createWorktree } from "../worktrees/worktree-create.ts";
import { discardWorktree } from "../worktrees/worktree-remove.ts";
import type { ModelSource } from "./model-source.ts";
import { createForkSession, createThreadSession } from "./session-creation.ts";
import type { SessionDirectories } from "./session-dirs.ts";
import type { SessionReplacing } from "./session-replacing.ts";
import {
  type LoaderContext,
  type ProjectSettings,
  readProjectSettings,
  requireDirectory,
} from "./thread-loader.ts";
import type { ThreadRegistry } from "./thread-registry.ts";
import type { ThreadRuntime } from "./thread-runtime.ts";
import { runWorktreeSetup, worktreeSetupOf } from "./worktree-setup.ts";

/** What making a new thread's worktree found, for its `thread/start` answer. */
export const worktreeStarts = new WeakMap<ThreadRuntime, { sourceDirty: boolean; copied: string[] }>();

/** What thread creation needs from the manager. */
export interface CreationHost {
  ctx: LoaderContext;
  dirs: SessionDirectories;
  registry: ThreadRegistry;
  models: ModelSource;
  emit(event: ThreadManagerEvent): void;
}

/** Makes new threads and forks, loaded and announced, not yet subscribed. */
export class ThreadCreation {
  constructor(private readonly host: CreationHost) {}

  private announce(runtime: ThreadRuntime): ThreadRuntime {
    this.host.emit({
      audience: "everyone",
      notification: { method: "thread/started", params: { thread: runtime.thread() } },
    });
    runtime.publishStatus();
    return runtime;
  }

  /**
   * A new thread in `params.cwd` with the caller's default approval mode unless one is
   * given; with `params.worktree`, in a new worktree of cwd's repository (removed again
   * if the thread cannot be made). `/new` passes the old thread's worktree on.
   */
  async start(
    params: ThreadStartParams,
    caller: Caller,
    inherited?: SessionWorktree,
    replacing?: SessionReplacing,
  ): Promise<ThreadRuntime> {
    this.host.registry.refuseWhileClosing();
    await requireDirectory(params.cwd);
    if (!params.worktree) return this.startIn(params, caller, inherited, replacing);
    const made = await createWorktree({
      cwd: params.cwd,
      agentDir: this.host.ctx.agentDir,
      ...(params.worktree.name !== undefined ? { name: params.worktree.name } : {}),
      ...(params.worktree.baseRef !== undefined ? { baseRef: params.worktree.baseRef } : {}),
    });
    // the source project's settings decide trust and setup; a worktree of a trusted
    // project is trusted too (the same repository's files), recorded for its folder
    const source = await readProjectSettings(this.host.ctx, params.cwd);
    let runtime: ThreadRuntime;
    try {
      if (source.trusted) {
        const inside = relative(made.sourceTree, source.projectDir);
        if (!inside.startsWith(".."))
          await setProjectTrust(this.host.ctx.agentDir, join(made.record.path, inside), true);
      }
      runtime = await this.startIn({ ...params, cwd: made.cwd }, caller, sessionWorktreeOf(made.record));
    } catch (error) {
      await discardWorktree(made.record).catch(() => {});
      throw error;
    }
    await claimWorktree(made.record, runtime.id);
    // the setup command of the source project's (trusted) settings, through the thread's tools
    const setup = worktreeSetupOf(source.projectSettings, source.trusted);
    if (setup) {
      const failed = await runWorktreeSetup(
        setup,
        { worktree: made.record.path, sourceTree: made.sourceTree },
        runtime.tools.ops,
      );
      if (failed) runtime.loadWarnings.push(failed);
    }
    worktreeStarts.set(runtime, { sourceDirty: made.sourceDirty, copied: made.copied });
    return runtime;
  }

  private async startIn(
    params: ThreadStartParams,
    caller: Caller,
    worktree: SessionWorktree | undefined,
    replacing?: SessionReplacing,
  ): Promise<ThreadRuntime> {
    const project = await readProjectSettings(this.host.ctx, params.cwd);
    let model: Model | undefined;
    if (params.model) {
      model = await this.host.models.find(params.model);
      if (!model) {
        throw new AppServerError(
          "invalidParams",
          `Unknown model ${params.model.provider}/${params.model.id}`,
        );
      }
    } else {
      // the settings just read name the default; reading them again cost the first thread ~0.5 ms
      model = await this.host.models.defaultModel(
        project.globalSettingsRead === true ? (project.globalSettings ?? {}) : undefined,
      );
    }
    const target = await this.host.dirs.forNewThread(caller, params.cwd, project.projectDir, project);
    const modelWarnings = (await this.host.models.warnings?.()) ?? [];
    const created = await createThreadSession(target.dir, params, {
      approvalMode: params.approvalMode ?? defaultApprovalMode(caller.clientKind),
      model,
      ...(worktree ? { worktree } : {}),
    });
    return this.announce(
      await this.adopt(
        created,
        caller,
        project,
        [...target.warnings, ...modelWarnings],
        params.mcpServers,
        replacing,
      ),
    );
  }

  /**
   * A fork of `source`'s current branch (or the branch ending at `leafId`, `null` for
   * none), named `<source title> (fork)` unless `name` is given.
   */
  async fork(
    source: SessionFile,
    caller: Caller,
    name?: string,
    mcpServers?: McpServers,
    leafId?: string | null,
    replacing?: SessionReplacing,
  ): Promise<ThreadRuntime> {
    this.host.registry.refuseWhileClosing();
    const cwd = source.header.cwd;
    const project = await readProjectSettings(this.host.ctx, cwd);
    const target = await this.host.dirs.forNewThread(caller, cwd, project.projectDir, project);
    const created = await createForkSession(source, target.dir, name, leafId);
    // a fork works in its source's folder and worktree; the worktree's owner stays the source
    return this.announce(await this.adopt(created, caller, project, target.warnings, mcpServers, replacing));
  }

  /**
   * Adopts a new transcript while its fsyncs run; if either fails, the transcript is
   * closed (its lock released) and nothing stays registered.
   */
  private async adopt(
    created: SyncingSession,
    caller: Caller,
    project: ProjectSettings,
    warnings: Warning[],
    mcpServers: McpServers | undefined,
    replacing?: SessionReplacing,
  ): Promise<ThreadRuntime> {
    try {
      return await this.host.registry.adopt(
        created.session,
        caller,
        project,
        warnings,
        mcpServers,
        created,
        replacing,
      );
    } catch (error) {
      created.session.close();
      throw error;
    }
  }
}

/** A worktree record as a transcript header keeps it. */
export function sessionWorktreeOf(record: WorktreeRecord): SessionWorktree {
  const out: SessionWorktree = {
    name: record.name,
    path: record.path,
    branch: record.branch,
    baseRef: record.baseRef,
    baseCommit: record.baseCommit,
    repository: record.repository,
  };
  if (record.sourceBranch !== undefined) out.sourceBranch = record.sourceBranch;
  return out;
}
