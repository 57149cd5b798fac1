/**
 * `thread/settings/update`: model, thinking level and approval mode, validated against
 * the registry and persisted on the branch. It takes admission like a start, so a
 * change never interleaves with one (`turnInProgress` while a turn runs).
 */
import { AppServerError, type ThreadSettingsUpdateParams } from "@knightcode/app-server-protocol";
import { callHook } from "../extensions/extension-hooks.ts";
import type { ModelSource } from "./model-source.ts";
import type { ThreadRuntime } from "./thread-runtime.ts";

/** Validates and persists a settings change on a loaded thread. */
export async function applySettingsUpdate(
  runtime: ThreadRuntime,
  params: ThreadSettingsUpdateParams,
  models: ModelSource,
): Promise<void> {
  runtime.admit("settings");
  // A settings change rereads the prompt sources (context files, SYSTEM.md) on the next turn.
  runtime.promptSources.invalidate();
  const previousModel = runtime.model;
  const previousLevel = runtime.settings.thinkingLevel;
  let selected = false;
  try {
    const model = params.model ? await models.find(params.model) : runtime.model;
    if (params.model && !model) {
      throw new AppServerError("invalidParams", `Unknown model ${params.model.provider}/${params.model.id}`);
    }
    const levels = model?.thinkingLevels ?? ["off"];
    if (params.thinkingLevel && !levels.includes(params.thinkingLevel)) {
      const name = model ? `${model.provider}/${model.id}` : "the current model";
      throw new AppServerError(
        "invalidParams",
        `Thinking level ${params.thinkingLevel} is not offered by ${name}`,
      );
    }
    if (params.model && model) {
      runtime.append({ type: "model_change", provider: model.provider, modelId: model.id });
      runtime.settings.model = { provider: model.provider, id: model.id };
      runtime.model = model;
      selected = true;
    }
    if (params.thinkingLevel) {
      runtime.append({ type: "thinking_level_change", thinkingLevel: params.thinkingLevel });
      runtime.settings.thinkingLevel = params.thinkingLevel;
    }
    if (params.approvalMode) {
      runtime.append({ type: "approval_mode", mode: params.approvalMode });
      runtime.settings.approvalMode = params.approvalMode;
    }
    runtime.sync();
    const hook = runtime.extensions.hooks.modelSelect;
    if (selected && model && hook) {
      await callHook(
        () => hook({ model, previousModel, source: "set" }),
        undefined,
        (w) => runtime.warn(w),
      );
    }
    const levelHook = runtime.extensions.hooks.thinkingLevelSelect;
    if (params.thinkingLevel && params.thinkingLevel !== previousLevel && levelHook) {
      await callHook(
        () => levelHook({ level: params.thinkingLevel!, previousLevel }),
        undefined,
        (w) => runtime.warn(w),
      );
    }
  } finally {
    if (!runtime.closed) runtime.release();
  }
}
