/**
 * Which thread the terminal agent opens: a new one, the latest of this directory
 * (`-c`), or a named one (`--session <id|path>`). Flags for model, thinking and approval
 * mode apply to a new thread at start and to an opened one through
 * `thread/settings/update`.
 */
import { basename } from "node:path";
import {
  type AppServerClient,
  type ExtensionFlag,
  isAppServerError,
  type Thread,
  type ThreadResources,
  type ThreadResumeResult,
  type Warning,
} from "@knightcode/app-server-protocol";
import type { AgentOptions } from "./args.ts";

/** An opened thread, with its history when it was resumed. */
export interface OpenedThread {
  thread: Thread;
  resumed?: ThreadResumeResult;
  warnings: Warning[];
  /** The flags the thread's extensions registered. */
  extensionFlags?: ExtensionFlag[];
  /** Started by this run (not resumed). */
  created?: boolean;
  /** Its context files and loaded extensions, when the server says. */
  resources?: ThreadResources;
}

/** A local error the binary reports on stderr with exit code 1. */
export class OpenThreadError extends Error {}

/** The thread ID a `--session` value names: an ID, or a transcript path ending in `_<id>.jsonl`. */
export function sessionIdOf(value: string): string {
  if (!value.endsWith(".jsonl")) return value;
  const name = basename(value, ".jsonl");
  const underscore = name.lastIndexOf("_");
  return underscore >= 0 ? name.slice(underscore + 1) : name;
}

/** Opens the thread the options ask for. `pickedId` is what `-r`'s picker chose. */
export async function openThread(
  client: AppServerClient,
  cwd: string,
  options: AgentOptions,
  pickedId?: string,
): Promise<OpenedThread> {
  let id = pickedId ?? (options.session === undefined ? undefined : sessionIdOf(options.session));
  if (id === undefined && options.continue) {
    const latest = await client.request("thread/list", { cwd, limit: 1 });
    id = latest.threads[0]?.id;
  }
  if (id === undefined) {
    const started = await client.request("thread/start", {
      cwd,
      ...(options.approvalMode === undefined ? {} : { approvalMode: options.approvalMode }),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.thinking === undefined ? {} : { thinkingLevel: options.thinking }),
      ...(options.worktree === undefined ? {} : { worktree: options.worktree }),
    });
    const warnings = [...started.warnings];
    if (started.worktreeStart?.sourceDirty)
      warnings.push({
        source: "server",
        message:
          "This checkout has uncommitted changes; the worktree starts from the last commit without them",
      });
    return { thread: started.thread, warnings, created: true, ...flagsOf(started), ...resourcesOf(started) };
  }
  let resumed: ThreadResumeResult;
  try {
    resumed = await client.request("thread/resume", { threadId: id });
  } catch (error) {
    if (isAppServerError(error, "threadNotFound")) {
      throw new OpenThreadError(`no session '${options.session ?? id}'`);
    }
    throw error;
  }
  const changes = {
    ...(options.approvalMode === undefined ? {} : { approvalMode: options.approvalMode }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.thinking === undefined ? {} : { thinkingLevel: options.thinking }),
  };
  if (Object.keys(changes).length === 0) {
    return {
      thread: resumed.thread,
      resumed,
      warnings: resumed.warnings,
      ...flagsOf(resumed),
      ...resourcesOf(resumed),
    };
  }
  const updated = await client.request("thread/settings/update", { threadId: id, ...changes });
  return {
    thread: updated.thread,
    resumed,
    warnings: resumed.warnings,
    ...flagsOf(resumed),
    ...resourcesOf(resumed),
  };
}

/**
 * Deletes a thread this run started (archive, then delete: only an archived thread can
 * be deleted) when the command line turned out to be unusable after all; an opened
 * existing thread is left as it was.
 */
export async function discardStartedThread(client: AppServerClient, opened: OpenedThread): Promise<void> {
  if (opened.resumed !== undefined) return;
  const threadId = opened.thread.id;
  await client
    .request("thread/archive", { threadId })
    .then(() => client.request("thread/delete", { threadId }))
    .catch(() => undefined);
}

function flagsOf(result: { extensionFlags?: ExtensionFlag[] }): { extensionFlags?: ExtensionFlag[] } {
  return result.extensionFlags === undefined ? {} : { extensionFlags: result.extensionFlags };
}

function resourcesOf(result: { resources?: ThreadResources }): { resources?: ThreadResources } {
  return result.resources === undefined ? {} : { resources: result.resources };
}
