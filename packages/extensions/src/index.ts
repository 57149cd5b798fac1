// pi's package names resolve to the compatibility modules in every extension.
import "./pi/pi-modules.ts";

export type * from "./api-types.ts";
export { boundedCall, DEFAULT_HOOK_TIMEOUT_MS, hookTimeoutMs } from "./bounded-call.ts";
export { ExtensionRunner, StaleExtensionError } from "./extension-runner.ts";
export { type CachedFactory, FactoryCache, MAX_INACTIVE_FACTORIES } from "./factory-cache.ts";
export type {
  BeforeAgentStartHookResult,
  ExtensionDiscoveryOptions,
  ExtensionHooks,
  ExtensionHost,
  ExtensionHostContext,
  ExtensionHostFactory,
  ExtensionHostOptions,
  ExtensionThreadPort,
  InputHookResult,
  ObserverAnswer,
  ReplacementSession,
  SessionMoveCancel,
  SessionReplaceRequest,
  SessionView,
  ToolResultPatch,
} from "./host-contract.ts";
export {
  createExtensionHostFactory,
  type ExtensionRuntime,
  type ExtensionRuntimeOptions,
  type LoadedExtensionHost,
  loadExtensionHost,
} from "./host-factory.ts";
export { createLazyExtensionHostFactory, emptyExtensionHost } from "./lazy-host-factory.ts";
export type { ComponentFactory, CustomComponentOptions, LiveComponentSurface } from "./live-components.ts";
export {
  ExtensionLoadError,
  importExtension,
  provideModuleToExtensions,
  provideToExtensions,
} from "./module-loader.ts";
export { createNoUI } from "./no-ui.ts";
export {
  installPackage,
  type ListedPackage,
  listPackages,
  type PackageContext,
  removePackage,
  updatePackages,
} from "./packages/package-manager.ts";
export { PackageSourceError, parsePackageSource } from "./packages/package-source.ts";
export { PackageInstallError } from "./packages/package-store.ts";
export { type PackageTheme, packageThemes, readThemeFile } from "./packages/package-themes.ts";
export { type DiscoveryStep, discoverExtensions, type ExtensionSource } from "./sources.ts";
