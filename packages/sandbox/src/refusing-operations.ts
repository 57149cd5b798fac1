/**
 * The backend of a thread whose sandbox was asked for and cannot run: every operation
 * fails with the reason, so nothing runs on the host instead (fail closed).
 */
import type { ToolOperations } from "@knightcode/agent";

/** Operations that all reject with `error`; the synchronous ones answer harmless values. */
export function createRefusingOperations(error: Error, homeDir: string): ToolOperations {
  const refuse = async (): Promise<never> => {
    throw error;
  };
  return {
    readFile: refuse,
    writeFile: refuse,
    appendFile: refuse,
    stat: refuse,
    mkdir: refuse,
    readdir: refuse,
    spawn: refuse,
    which: refuse,
    tempDir: () => "/nonexistent",
    homeDir: () => homeDir,
    shell: () => ({ file: "/bin/false", args: [] }),
  };
}
