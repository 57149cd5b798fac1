/**
 * Each loaded thread's tool backend: the `ToolOperations` its tools (and `!` commands)
 * act through, chosen at load from the manager's options and the thread's settings.
 * Every backend starts processes without credentials; which names may pass is a
 * global setting (`shellEnvironment.allow`), never a project one, so a cloned project
 * cannot widen what its commands see.
 */
import { createLocalOperations, type ToolOperations } from "@knightcode/agent";
import type { Warning } from "./shapes.ts";

/** A thread's tools backend and how to release it. */
export interface ThreadToolBackend {
  /** Undefined when the manager's `tools` factory brings its own operations. */
  ops: ToolOperations | undefined;
  /** Problems choosing the backend, reported with the thread's start/resume warnings. */
  warnings: Warning[];
  dispose(): Promise<void>;
}

/** What a backend is chosen from. */
export interface ToolBackendRequest {
  cwd: string;
  /** The global settings as read at load (`null` when unreadable or absent). */
  globalSettings: Record<string, unknown> | null;
  /** The project's settings when it is trusted, else `null`. */
  projectSettings: Record<string, unknown> | null;
}

/** Chooses a backend for one thread. */
export type ToolBackendFactory = (request: ToolBackendRequest) => Promise<ThreadToolBackend>;

/** The `shellEnvironment.allow` names of a settings object, with a warning when malformed. */
export function shellEnvironmentAllow(settings: Record<string, unknown> | null): {
  allow: string[];
  warnings: Warning[];
} {
  const block = settings?.shellEnvironment;
  if (block === undefined) return { allow: [], warnings: [] };
  const allow = (block as { allow?: unknown } | null)?.allow;
  if (
    typeof block !== "object" ||
    block === null ||
    (allow !== undefined && (!Array.isArray(allow) || allow.some((n) => typeof n !== "string")))
  ) {
    return {
      allow: [],
      warnings: [
        {
          source: "settings",
          message: "shellEnvironment.allow must be an array of variable names; no credential is let through",
        },
      ],
    };
  }
  return { allow: (allow as string[] | undefined) ?? [], warnings: [] };
}

/** The manager's factory: the injected one, fixed `toolOperations`, else the local backend. */
export function threadToolBackendFactory(options: {
  toolBackend?: ToolBackendFactory;
  toolOperations?: ToolOperations;
  homeDir?: string;
}): ToolBackendFactory {
  if (options.toolBackend) return options.toolBackend;
  const fixed = options.toolOperations;
  if (fixed) return async () => ({ ops: fixed, warnings: [], dispose: async () => {} });
  return localToolBackendFactory(options.homeDir === undefined ? {} : { homeDir: options.homeDir });
}

/** The default factory: the local backend with credential hygiene. */
export function localToolBackendFactory(
  options: { env?: Record<string, string | undefined>; homeDir?: string } = {},
): ToolBackendFactory {
  return async (request) => {
    const { allow, warnings } = shellEnvironmentAllow(request.globalSettings);
    const ops = createLocalOperations({
      allowEnv: allow,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
    });
    return { ops, warnings, dispose: async () => {} };
  };
}
