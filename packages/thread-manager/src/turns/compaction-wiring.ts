/**
 * Compaction at the spec's check points, built on `@knightcode/compaction`: before a new
 * prompt, after a tool batch before the next response, and the compact-and-retry
 * recovery after a run that ended in overflow or an early `length` stop. Compaction
 * entries written during a turn become that turn's compaction items.
 */
import type { AssistantMessage, StreamFunction } from "@knightcode/ai";
import type {
  CompactionCheckPoint,
  CompactionSessionPort,
  CompactionSettings,
  CompactionHooks as PackageHooks,
  SummarizeBranchOutcome,
} from "@knightcode/compaction";
// The context estimate is read with every usage report, so its two modules load with the
// thread; the rest of the package (thresholds, cut points, summaries) loads at the first
// compaction check, which no `thread/start` makes.
import { projectedContext, projectPath } from "@knightcode/compaction/projection";
import { estimateContextTokens } from "@knightcode/compaction/tokens";
import { resolveCompactionSettings } from "@knightcode/config";
import type { CompactionEntry, SessionEntry } from "@knightcode/session-store";
import { callHook } from "../extensions/extension-hooks.ts";
import type { ThreadPort } from "../thread-port.ts";
import type { CompactionHooks } from "./environment.ts";

/** The compaction package itself, loaded on first use (the module cache keeps it after). */
let compactionModule: typeof import("@knightcode/compaction") | undefined;
const loadCompaction = async () => {
  compactionModule ??= await import("@knightcode/compaction");
  return compactionModule;
};

/**
 * The current context size for usage reports, or undefined when it is unknown: after a
 * compaction and before a reply reports usage again, the model has never counted the
 * summarized context, so no estimate stands in for it. Otherwise the compaction package's
 * figure (`branchContextTokens`: the last successful usage plus an estimate of what
 * follows it, which is what a branch without compaction always had).
 */
export function currentContextTokens(branch: readonly SessionEntry[]): number | undefined {
  const view = projectPath(branch);
  const { messages, afterCompaction } = projectedContext(view);
  const estimate = estimateContextTokens(messages, afterCompaction);
  if (view.latestCompactionIndex >= 0 && estimate.lastUsageIndex === undefined) return undefined;
  return estimate.tokens;
}

/** `currentContextTokens` of the runtime's branch, from the estimate it keeps per leaf. */
function knownContextTokens(runtime: ThreadPort): number | undefined {
  const size = runtime.projection.contextSize();
  return size.known ? size.tokens : undefined;
}

/** A port that writes through the runtime (ownership checks) and shows the entry in the running turn. */
function runtimePort(runtime: ThreadPort): CompactionSessionPort {
  return {
    branch: () => runtime.session.branch(),
    appendCompaction(draft) {
      const { firstKeptEntryId, ...rest } = draft;
      let entry: CompactionEntry;
      if (firstKeptEntryId !== null) {
        entry = runtime.append({ type: "compaction", firstKeptEntryId, ...rest }) as CompactionEntry;
      } else {
        // Retain-none records the entry's own ID, so the ID is reserved before the write.
        const id = runtime.session.reserveEntryId();
        entry = runtime.append(
          { type: "compaction", firstKeptEntryId: id, ...rest },
          { id },
        ) as CompactionEntry;
      }
      const running = runtime.running;
      if (running) {
        running.live.onEntryPersisted(entry);
        // The summary's own usage is billed to the thread: report the new totals.
        runtime.toSubscribers({
          method: "thread/tokenUsage/updated",
          params: {
            threadId: runtime.id,
            turnId: running.live.id,
            usage: runtime.usage(currentContextTokens(runtime.session.branch())),
          },
        });
      }
      return entry;
    },
  };
}

/** Adapts a thread's extension hooks to the compaction package's hook points; errors become warnings. */
function packageHooks(runtime: ThreadPort): PackageHooks {
  const hooks = runtime.extensions.hooks;
  const warn = (w: Parameters<ThreadPort["warn"]>[0]) => runtime.warn(w);
  return {
    session_before_compact: (event) =>
      callHook(hooks.sessionBeforeCompact && (() => hooks.sessionBeforeCompact!(event)), undefined, warn),
    session_compact: (event) =>
      callHook(hooks.sessionCompact && (() => hooks.sessionCompact!(event)), undefined, warn),
    session_compact_failed: (event) =>
      callHook(hooks.sessionCompactFailed && (() => hooks.sessionCompactFailed!(event)), undefined, warn),
    session_before_tree: (event) =>
      callHook(hooks.sessionBeforeTree && (() => hooks.sessionBeforeTree!(event)), undefined, warn),
  };
}

function settingsOf(runtime: ThreadPort): CompactionSettings {
  const model = runtime.model;
  return resolveCompactionSettings(
    runtime.projectSettings,
    model ? `${model.provider}/${model.id}` : undefined,
  );
}

/** Compaction wired to a stream function for its summaries. */
export function createCompactionWiring(
  streamFn: StreamFunction,
  apiKey: (runtime: ThreadPort) => Promise<string | undefined>,
): CompactionHooks {
  const compact = async (
    runtime: ThreadPort,
    reason: "threshold" | "overflow" | "manual",
    willRetry: boolean,
    signal: AbortSignal,
    customInstructions?: string,
  ) => {
    const model = runtime.model;
    if (!model) return undefined;
    const key = await apiKey(runtime);
    const { runCompaction } = await loadCompaction();
    return runCompaction({
      session: runtimePort(runtime),
      settings: settingsOf(runtime),
      summarizer: {
        model,
        complete: (m, context, options) => streamFn(m, context, options).result(),
        ...(key !== undefined ? { apiKey: key } : {}),
      },
      reason,
      willRetry,
      ...(customInstructions !== undefined ? { customInstructions } : {}),
      hooks: packageHooks(runtime),
      signal,
    });
  };
  const check = async (runtime: ThreadPort, point: CompactionCheckPoint, signal: AbortSignal) => {
    const model = runtime.model;
    if (!model) return false;
    // Every prompt checks: once loaded, the check runs without waiting on the module again.
    const { checksThresholdAt, shouldCompact } = compactionModule ?? (await loadCompaction());
    // `checkThreshold`'s verdict, on the estimate the runtime keeps per leaf instead of a
    // projection of the whole branch at every prompt.
    const settings = settingsOf(runtime);
    if (!checksThresholdAt(point) || !settings.enabled) return false;
    if (!shouldCompact(runtime.projection.contextSize().tokens, model.contextWindow, settings)) return false;
    const outcome = await compact(runtime, "threshold", false, signal);
    return outcome?.status === "compacted";
  };
  return {
    maybeCompact: async (runtime, _reason, signal) => {
      await check(runtime, { kind: "beforePrompt" }, signal);
    },
    afterToolBatch: (runtime, signal) =>
      check(runtime, { kind: "afterToolBatch", batchEndsRun: false, queuedNeedsResponse: false }, signal),
    recover: async (runtime, lastAssistant, signal, agentEnd) => {
      const model = runtime.model;
      const running = runtime.running;
      if (!model || !running) return false;
      const entry = running.live.entries.find((e) => e.type === "message" && e.message === lastAssistant);
      if (!entry) return false;
      const { omissionEdit, selectRecovery } = await loadCompaction();
      const plan = selectRecovery({
        finalMessage: lastAssistant,
        attemptEntryIds: [entry.id],
        settings: settingsOf(runtime),
        contextWindow: model.contextWindow,
        maxOutputTokens: model.maxTokens,
        isRecoveryRetry: false,
      });
      if (!plan) return false;
      // The final response is persisted and turn_end has run; then the spec's order:
      // agent_end for the attempt, the omission edit, the compaction, the retry.
      await agentEnd();
      runtime.append(omissionEdit(plan.attemptEntryIds, plan.kind));
      const outcome = await compact(runtime, "overflow", true, signal);
      return outcome?.status === "compacted";
    },
    contextTokens: knownContextTokens,
    branchSummary: async (runtime, request, signal): Promise<SummarizeBranchOutcome> => {
      const model = runtime.model;
      // without a model the extensions are still asked; only a summary nobody gave fails
      const key = model ? await apiKey(runtime) : undefined;
      const { summarizeBranch } = await loadCompaction();
      return summarizeBranch({
        getEntry: (id) => runtime.session.getEntry(id),
        oldLeafId: runtime.session.leafId,
        targetId: request.targetId,
        summarize: request.summarize,
        ...(request.customInstructions !== undefined
          ? { customInstructions: request.customInstructions }
          : {}),
        ...(model
          ? {
              summarizer: {
                model,
                complete: (m, context, options) => streamFn(m, context, options).result(),
                ...(key !== undefined ? { apiKey: key } : {}),
              },
            }
          : {}),
        reserveTokens: settingsOf(runtime).reserveTokens,
        hooks: packageHooks(runtime),
        signal,
      });
    },
    manual: async (runtime, customInstructions, signal) => {
      const outcome = await compact(runtime, "manual", false, signal, customInstructions);
      if (!outcome) return { status: "failed", errorMessage: "No model is selected to write the summary" };
      if (outcome.status === "failed") return { status: "failed", errorMessage: outcome.errorMessage };
      return { status: outcome.status };
    },
  };
}

/** Hooks that never compact, for hosts that turn compaction off; the estimate still works. */
export const noCompaction: CompactionHooks = {
  maybeCompact: async () => {},
  afterToolBatch: async () => false,
  recover: async (_runtime: ThreadPort, _last: AssistantMessage) => false,
  contextTokens: knownContextTokens,
};
