/**
 * Each loaded thread's tool backend: the `ToolOperations` its tools (and `!` commands)
 * act through, chosen at load from the manager's options and the thread's settings —
 * the local backend, or the thread's own bubblewrap sandbox over its cwd. Every backend
 * starts processes without credentials; which names may pass is a global setting
 * (`shellEnvironment.allow`), never a project one, so a cloned project cannot widen
 * what its commands see.
 */
import { userInfo } from "node:os";
// the operations alone: the tools and the agent loop load with the first turn
import { createLocalOperations, type ToolOperations } from "@knightcode/agent/operations";
import type { ThreadSandbox } from "@knightcode/app-server-protocol";
import type { SandboxHelperCommand } from "@knightcode/sandbox";
// Only the settings reader loads with every thread; the rest of the sandbox package
// (bubblewrap probe, mount plan, sandboxed operations) loads when a thread turns it on.
import { readSandboxSettings } from "@knightcode/sandbox/settings";
import type { Warning } from "../shapes.ts";

/** A thread's tools backend and how to release it. */
export interface ThreadToolBackend {
  /** Undefined when the manager's `tools` factory brings its own operations. */
  ops: ToolOperations | undefined;
  /** Where the tools run, as `thread/start` reports it. */
  sandbox: ThreadSandbox;
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

/** How the manager's default factory isolates tools. */
export interface ToolIsolationOptions {
  /** The server's environment (tool processes get it without credentials); this process's by default. */
  env?: Record<string, string | undefined>;
  homeDir?: string;
  /** `--sandbox`: every thread sandboxed, whatever the settings say. */
  sandbox?: boolean;
  /** The server itself runs inside a sandbox (`knightcode --sandbox=process`). */
  processSandbox?: boolean;
  /** Folders no sandbox may show: the agent dir and the session dirs. */
  hiddenDirs?: () => string[];
  /**
   * How a sandbox starts its helper: the program that hosts the manager knows how it runs
   * (apps/cli's self-command.ts). Without it a thread that asks for the sandbox fails closed.
   */
  sandboxHelper?: SandboxHelperCommand;
}

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

const noDispose = async () => {};

/** The manager's factory: the injected one, fixed `toolOperations`, else {@link isolatedToolBackendFactory}. */
export function threadToolBackendFactory(
  options: { toolBackend?: ToolBackendFactory; toolOperations?: ToolOperations } & ToolIsolationOptions,
): ToolBackendFactory {
  if (options.toolBackend) return options.toolBackend;
  const fixed = options.toolOperations;
  if (fixed) {
    return async () => ({
      ops: fixed,
      sandbox: { mode: "off", network: "on" },
      warnings: [],
      dispose: noDispose,
    });
  }
  return isolatedToolBackendFactory(options);
}

/**
 * The default factory: a bubblewrap sandbox over the thread's cwd when `--sandbox` or the
 * `sandbox` settings ask for one, else the local backend; credential hygiene either way.
 * A sandbox that cannot start fails closed: the thread's tools all fail with the cause.
 */
export function isolatedToolBackendFactory(options: ToolIsolationOptions = {}): ToolBackendFactory {
  return async (request) => {
    const env = options.env ?? process.env;
    const home = options.homeDir ?? env.HOME ?? userInfo().homedir;
    const shell = shellEnvironmentAllow(request.globalSettings);
    const { settings, warnings } = readSandboxSettings({
      global: request.globalSettings,
      project: request.projectSettings,
      forced: options.sandbox === true,
      home,
    });
    const allWarnings: Warning[] = [...shell.warnings, ...warnings];
    if (!settings.enabled || options.processSandbox) {
      const ops = createLocalOperations({
        env,
        allowEnv: shell.allow,
        ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
      });
      // Inside a process sandbox the tools share its boundary (and its network, which the
      // server needs for the model); a nested bubblewrap could not mount /proc.
      const sandbox: ThreadSandbox = options.processSandbox
        ? { mode: "process", network: "on" }
        : { mode: "off", network: "on" };
      return { ops, sandbox, warnings: allWarnings, dispose: noDispose };
    }
    const { createRefusingOperations, createSandboxOperations, requireBubblewrap, SandboxUnavailableError } =
      await import("@knightcode/sandbox");
    try {
      if (!options.sandboxHelper)
        throw new SandboxUnavailableError(
          "startFailed",
          "this server was built without a command to start the sandbox helper (the sandboxHelper option).",
        );
      const bwrap = await requireBubblewrap(env.PATH ?? "");
      const ops = createSandboxOperations({
        bwrap,
        cwd: request.cwd,
        env: { ...env, HOME: home },
        allowEnv: shell.allow,
        settings,
        hidden: options.hiddenDirs?.() ?? [],
        helper: options.sandboxHelper,
      });
      return {
        ops,
        sandbox: { mode: "bubblewrap", network: settings.network },
        warnings: allWarnings,
        dispose: () => ops.dispose(),
      };
    } catch (error) {
      if (!(error instanceof SandboxUnavailableError)) throw error;
      return {
        ops: createRefusingOperations(error, home),
        sandbox: { mode: "unavailable", network: "off" },
        warnings: [...allWarnings, { source: "sandbox", message: error.message }],
        dispose: noDispose,
      };
    }
  };
}
