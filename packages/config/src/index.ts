export type { CompactionSettings } from "./compaction-settings.ts";
export { DEFAULT_COMPACTION_SETTINGS, resolveCompactionSettings } from "./compaction-settings.ts";
export type { ConfigReadResult, ReadConfigOptions } from "./config-read.ts";
export { readConfig } from "./config-read.ts";
export type { ConfigWriteResult, WriteConfigOptions } from "./config-write.ts";
export { MAX_SETTINGS_VALUE_DEPTH, writeConfig } from "./config-write.ts";
export type { ContextFile, LoadContextFilesOptions } from "./context-files.ts";
export { CONTEXT_FILE_NAMES, loadContextFiles } from "./context-files.ts";
export type { AuthCredential } from "./credentials.ts";
export {
  readToolsFile,
  SECRET_FILE_MODE,
  setAuthCredential,
  setToolsSection,
} from "./credentials.ts";
export { formatDottedKey, parseDottedKey } from "./dotted-key.ts";
export type { ConfigErrorCode, InvalidParamsReason } from "./errors.ts";
export { ConfigError, isErrnoCode } from "./errors.ts";
export type { FileLockOptions } from "./file-lock.ts";
export { withFileLock } from "./file-lock.ts";
export type { FrontmatterDocument } from "./frontmatter.ts";
export { parseFrontmatter } from "./frontmatter.ts";
export { contentVersion, NO_VERSION } from "./json-file.ts";
export type { LoadedSettings, LoadSettingsOptions } from "./load-settings.ts";
export { loadSettings } from "./load-settings.ts";
export type {
  ConfiguredMcpServer,
  McpHttpServerSettings,
  McpServerSettings,
  McpStdioServerSettings,
} from "./mcp-settings.ts";
export { configuredMcpServers, MAX_MCP_START_TIMEOUT_MS, mcpServerConfigProblem } from "./mcp-settings.ts";
export type { SettingsScope } from "./merge.ts";
export { deepMerge } from "./merge.ts";
export { LEGACY_KEYS, migrateSettings } from "./migrations.ts";
export type { AgentPaths, ProjectPaths } from "./paths.ts";
export {
  AGENT_DIR_ENV,
  agentPaths,
  expandPath,
  PROJECT_CONFIG_DIR,
  projectPaths,
  resolveAgentDir,
  SESSION_DIR_ENV,
} from "./paths.ts";
export type {
  ExtensionResource,
  PromptTemplateResource,
  ResourceOrigin,
  SkillResource,
  ThemeResource,
} from "./resource-kinds.ts";
export type { DiscoveredResources, DiscoverResourcesOptions } from "./resources.ts";
export { discoverResources, projectHasLoadableResources } from "./resources.ts";
export type { ResolveSessionDirOptions, SessionDirResolution } from "./session-dir.ts";
export { resolveSessionDir } from "./session-dir.ts";
export type {
  BuildSystemPromptOptions,
  PromptFile,
  PromptSkill,
  PromptTool,
  ResolveSystemPromptFilesOptions,
  SystemPromptFiles,
} from "./system-prompt.ts";
export { buildSystemPrompt, resolveSystemPromptFiles } from "./system-prompt.ts";
export type { LoadThreadConfigOptions, ThreadConfig } from "./thread-config.ts";
export { loadThreadConfig } from "./thread-config.ts";
export type { ProjectTrust } from "./trust-store.ts";
export {
  readProjectTrust,
  readProjectTrustAt,
  readTrustDecision,
  readTrustDecisionAt,
  setProjectTrust,
  trustKey,
} from "./trust-store.ts";
export type { ConfigWarning } from "./warning.ts";
