/** @knightcode/sandbox: the bubblewrap backend of the tools' operations. */
export { type SandboxFailure, SandboxUnavailableError } from "./errors.ts";
export { refuseUnsafeMounts, unsafeMount } from "./mount-guard.ts";
export {
  bwrapArgs,
  collapsePaths,
  HOME_SECRETS,
  type Mount,
  type MountPlanInput,
  planMounts,
} from "./mount-plan.ts";
export { isWithin } from "./paths.ts";
export { requireBubblewrap } from "./probe.ts";
export { createRefusingOperations } from "./refusing-operations.ts";
export {
  createSandboxOperations,
  type SandboxHelperCommand,
  type SandboxOperations,
  type SandboxOperationsOptions,
} from "./sandbox-operations.ts";
export {
  readSandboxSettings,
  type SandboxNetwork,
  type SandboxSettings,
  type SandboxSettingsWarning,
} from "./settings.ts";
