/** @knightcode/sandbox: the bubblewrap backend of the tools' operations. */
export { type SandboxFailure, SandboxUnavailableError } from "./errors.ts";
export { bwrapArgs, collapsePaths, HOME_SECRETS, isWithin, type MountPlanInput } from "./mount-plan.ts";
export { requireBubblewrap } from "./probe.ts";
export { createRefusingOperations } from "./refusing-operations.ts";
export {
  createSandboxOperations,
  type SandboxOperations,
  type SandboxOperationsOptions,
} from "./sandbox-operations.ts";
export {
  readSandboxSettings,
  type SandboxNetwork,
  type SandboxSettings,
  type SandboxSettingsWarning,
} from "./settings.ts";
