/** The built-in tool set, wired to one working directory and one operations backend. */
import type { AnyAgentTool } from "../types.ts";
import { createBashTool } from "./bash.ts";
import { createEditTool } from "./edit.ts";
import { createFindTool } from "./find.ts";
import { createGrepTool } from "./grep.ts";
import {
  type AskUserHandler,
  createAskUserTool,
  createSubmitPlanTool,
  type SubmitPlanHandler,
} from "./host-tools.ts";
import { createLsTool } from "./ls.ts";
import { createLocalOperations, type ToolOperations } from "./operations.ts";
import { createReadTool } from "./read.ts";
import { createWriteTool } from "./write.ts";

/** Names of the built-in tools, in the order they are offered. */
export const BUILTIN_TOOL_NAMES = [
  "read",
  "write",
  "edit",
  "bash",
  "grep",
  "find",
  "ls",
  "ask_user",
  "submit_plan",
] as const;

/** One built-in tool's name. */
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** How to build the built-in tools. */
export interface BuiltinToolsOptions {
  cwd: string;
  /** The machine the tools act on; the local one by default. */
  ops?: ToolOperations;
  askUser?: AskUserHandler;
  submitPlan?: SubmitPlanHandler;
  /** A subset to build; all of them by default. */
  only?: readonly BuiltinToolName[];
}

/** Creates the built-in tools. */
export function createBuiltinTools(options: BuiltinToolsOptions): AnyAgentTool[] {
  const env = { cwd: options.cwd, ops: options.ops ?? createLocalOperations() };
  const factories: Record<BuiltinToolName, () => AnyAgentTool> = {
    read: () => createReadTool(env),
    write: () => createWriteTool(env),
    edit: () => createEditTool(env),
    bash: () => createBashTool(env),
    grep: () => createGrepTool(env),
    find: () => createFindTool(env),
    ls: () => createLsTool(env),
    ask_user: () => createAskUserTool(options.askUser),
    submit_plan: () => createSubmitPlanTool(options.submitPlan),
  };
  return (options.only ?? BUILTIN_TOOL_NAMES).map((name) => factories[name]());
}
