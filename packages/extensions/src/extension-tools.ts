/**
 * Extension tools as the agent runs them: pi's `execute(toolCallId, params, signal,
 * onUpdate, ctx)` called inside the extension's guarded context. A tool's run is not
 * bounded by the hook timeout (tools may take long); the turn's signal stops it.
 */
import type { AnyAgentTool } from "@knightcode/agent";
import type { ExtensionRunner } from "./extension-runner.ts";
import { runAsExtension } from "./stdout-guard.ts";

/** The runner's registered tools, filtered by `setActiveTools` when an extension chose. */
export function extensionAgentTools(runner: ExtensionRunner): AnyAgentTool[] {
  const active = runner.activeToolNames;
  const tools: AnyAgentTool[] = [];
  for (const [name, { path, value: tool }] of runner.tools) {
    if (active && !active.includes(name)) continue;
    const extension = runner.extensionAt(path);
    if (!extension) continue;
    tools.push({
      name,
      ...(tool.label !== undefined ? { label: tool.label } : {}),
      description: tool.description,
      parameters: tool.parameters,
      origin: { kind: "extension", path },
      execute: (args, context) =>
        runAsExtension(extension.caller, () =>
          tool.execute(
            context.toolCallId,
            args,
            context.signal,
            (partial) => context.onUpdate(partial),
            runner.ctx,
          ),
        ),
    });
  }
  return tools;
}
