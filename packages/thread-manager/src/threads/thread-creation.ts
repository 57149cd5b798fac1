/**
 * Creating threads: `thread/start`, `thread/fork` and the session-replacing commands
 * (`/new`, `/fork`) all make a transcript in the directory `SessionDirectories` picks,
 * adopt it as a loaded thread and announce it with `thread/started`. Subscribing is the
 * caller's business (a replacement moves every subscriber of the old thread). The new
 * transcript's fsyncs run on the thread pool while it is adopted; the thread is
 * registered, announced and answered only once the file is durable, checked without
 * an await (`ensureDurable`), so no other queued work runs before the answer.
 */
import type { Model } from "@knightcode/ai";
import { AppServerError, type McpServers, type ThreadStartParams } from "@knightcode/app-server-protocol";
import { defaultApprovalMode } from "@knightcode/approvals/modes";
import type { SessionFile, SyncingSession } from "@knightcode/session-store";
import type { Caller, ThreadManagerEvent } from "../api.ts";
import type { Warning } from "../shapes.ts";
import type { ModelSource } from "./model-source.ts";
import { createForkSession, createThreadSession } from "./session-creation.ts";
import type { SessionDirectories } from "./session-dirs.ts";
import {
  type LoaderContext,
  type ProjectSettings,
  readProjectSettings,
  requireDirectory,
} from "./thread-loader.ts";
import type { ThreadRegistry } from "./thread-registry.ts";
import type { ThreadRuntime } from "./thread-runtime.ts";

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

  /** A new thread in `params.cwd` with the caller's default approval mode unless one is given. */
  async start(params: ThreadStartParams, caller: Caller): Promise<ThreadRuntime> {
    this.host.registry.refuseWhileClosing();
    await requireDirectory(params.cwd);
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
    const created = await createThreadSession(target.dir, params, {
      approvalMode: params.approvalMode ?? defaultApprovalMode(caller.clientKind),
      model,
    });
    return this.announce(await this.adopt(created, caller, project, target.warnings, params.mcpServers));
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
  ): Promise<ThreadRuntime> {
    this.host.registry.refuseWhileClosing();
    const cwd = source.header.cwd;
    const project = await readProjectSettings(this.host.ctx, cwd);
    const target = await this.host.dirs.forNewThread(caller, cwd, project.projectDir, project);
    const created = await createForkSession(source, target.dir, name, leafId);
    return this.announce(await this.adopt(created, caller, project, target.warnings, mcpServers));
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
  ): Promise<ThreadRuntime> {
    try {
      return await this.host.registry.adopt(created.session, caller, project, warnings, mcpServers, created);
    } catch (error) {
      created.session.close();
      throw error;
    }
  }
}
