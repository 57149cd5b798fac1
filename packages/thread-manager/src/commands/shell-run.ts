/**
 * `thread/shell/run`: the user's `!cmd` / `!!cmd`. The command runs through the thread's
 * own `bash` tool, so it uses the same tool operations as the model's calls (and any
 * sandbox routing they carry), streams its output to subscribers, and is recorded as a
 * `bashExecution` message: in the model's context for `!cmd`, out of it for `!!cmd`.
 * It takes admission like a turn, so it never overlaps one on the same thread.
 */
import type { AnyAgentTool } from "@knightcode/agent";
import {
  AppServerError,
  type ThreadShellRunParams,
  type ThreadShellRunResult,
} from "@knightcode/app-server-protocol";
import { callHook } from "../extensions/extension-hooks.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { TurnEnvironment } from "../turns/environment.ts";

/** Visible text of a tool result. */
function resultText(content: readonly { type: string; text?: string }[]): string {
  return content
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("");
}

interface BashDetailsLike {
  exitCode?: number | null;
  aborted?: boolean;
  truncation?: unknown;
  fullOutputPath?: string;
}

/** Runs the command on a loaded, subscribed runtime; the caller holds nothing. */
export async function runShellCommand(
  runtime: ThreadPort,
  env: TurnEnvironment,
  params: ThreadShellRunParams,
): Promise<ThreadShellRunResult> {
  runtime.admit("shell");
  const controller = new AbortController();
  try {
    const hook = runtime.extensions.hooks.userBash;
    const replaced = await callHook(
      hook &&
        (() =>
          hook({
            command: params.command,
            excludeFromContext: params.excludeFromContext === true,
            cwd: runtime.cwd,
          })),
      undefined,
      (w) => runtime.warn(w),
    );
    // An extension's `user_bash` may answer in place of running the command.
    const ran = replaced?.result
      ? { ...replaced.result, exitCode: replaced.result.exitCode ?? null, fullOutputPath: undefined }
      : await runBash(runtime, env, params, controller.signal);
    const { output, exitCode, cancelled, truncated } = ran;
    const details = { fullOutputPath: ran.fullOutputPath };
    runtime.append({
      type: "message",
      message: {
        role: "bashExecution",
        command: params.command,
        output,
        exitCode: exitCode ?? undefined,
        cancelled,
        truncated,
        ...(details.fullOutputPath === undefined ? {} : { fullOutputPath: details.fullOutputPath }),
        ...(params.excludeFromContext === true ? { excludeFromContext: true } : {}),
        timestamp: runtime.port.clock.now(),
      },
    });
    runtime.sync();
    return {
      output,
      exitCode,
      cancelled,
      truncated,
      ...(details.fullOutputPath === undefined ? {} : { fullOutputPath: details.fullOutputPath }),
    };
  } finally {
    controller.abort();
    if (!runtime.closed) runtime.release();
  }
}

/** Runs the command through the thread's own bash tool, streaming output to subscribers. */
async function runBash(
  runtime: ThreadPort,
  env: TurnEnvironment,
  params: ThreadShellRunParams,
  signal: AbortSignal,
): Promise<{
  output: string;
  exitCode: number | null;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath: string | undefined;
}> {
  const tools = (await env.tools(runtime.cwd, runtime.tools.ops)) as AnyAgentTool[];
  const bash = tools.find((tool) => tool.name === "bash");
  if (bash === undefined) throw new AppServerError("toolMissing", `Thread ${runtime.id} has no bash tool`);
  const shellId = params.shellId;
  const result = await bash.execute(
    { command: params.command },
    {
      toolCallId: `shell-${Date.now().toString(36)}`,
      signal: signal,
      onUpdate: (partial) =>
        runtime.toSubscribers({
          method: "thread/shell/output",
          params: {
            threadId: runtime.id,
            ...(shellId === undefined ? {} : { shellId }),
            output: resultText(partial.content),
          },
        }),
    },
  );
  const details = (result.details ?? {}) as BashDetailsLike;
  const output = resultText(result.content);
  const exitCode = typeof details.exitCode === "number" ? details.exitCode : null;
  const cancelled = details.aborted === true;
  const truncated = details.truncation !== undefined;
  return { output, exitCode, cancelled, truncated, fullOutputPath: details.fullOutputPath };
}
