/** What every built-in tool is created with. */
import type { ToolOperations } from "./operations.ts";

/** The working directory tool paths resolve against, and the backend that does the work. */
export interface ToolEnv {
  cwd: string;
  ops: ToolOperations;
}

/** A text-only tool result content list. */
export function text(value: string): { type: "text"; text: string }[] {
  return [{ type: "text", text: value }];
}
