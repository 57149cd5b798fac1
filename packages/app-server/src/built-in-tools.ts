/** The server's built-in tools, loaded by `host.ts` on the first turn that needs them. */
import {
  type AnyAgentTool,
  createBashTool,
  createEditTool,
  createFindTool,
  createGrepTool,
  createLsTool,
  createReadTool,
  createWriteTool,
  type ToolOperations,
} from "@knightcode/agent";
import { createLocalOperations } from "@knightcode/agent/operations";

/** The seven built-in tools for one working directory, acting through `ops`. */
export function builtInToolsNow(cwd: string, ops: ToolOperations = createLocalOperations()): AnyAgentTool[] {
  const env = { cwd, ops };
  return [
    createReadTool(env),
    createWriteTool(env),
    createEditTool(env),
    createBashTool(env),
    createGrepTool(env),
    createFindTool(env),
    createLsTool(env),
  ] as AnyAgentTool[];
}
