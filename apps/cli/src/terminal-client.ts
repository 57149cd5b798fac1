/**
 * The terminal agent's connection to the server: the same server code as
 * `knightcode app-server`, reached through `createInProcessClient` as a terminal caller
 * (threads default to `fullAccess`, a project `sessionDir` counts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInProcessClient } from "@knightcode/app-server";
import type { AppServerClient, ExtensionFlagArg, ThreadResumeResult } from "@knightcode/app-server-protocol";
import type { LiveComponentSurface } from "@knightcode/extensions";
import { startLazyHost } from "./lazy-host.ts";

/**
 * Extensions in this process import the pi-tui the terminal draws with, so their
 * components render here (elsewhere pi-tui resolves to inert stand-ins). Before any
 * extension loads: the lazy host loads them with the first thread.
 */
async function useRealTuiForExtensions(): Promise<void> {
  const { provideModuleToExtensions } = await import("@knightcode/extensions");
  for (const scope of ["@mariozechner", "@earendil-works"]) {
    provideModuleToExtensions(`${scope}/pi-tui`, () => import("@mariozechner/pi-tui"));
  }
}

/** What the connection needs from the command line. */
export interface TerminalClientOptions {
  cwd: string;
  extensions: readonly string[];
  /** Flags for the extensions (`--plan`), resolved once a thread's extensions registered theirs. */
  extensionFlags?: readonly ExtensionFlagArg[];
  sessionDir?: string;
  /** `--no-session`: transcripts go to a private temporary folder removed on close. */
  noSession: boolean;
  clientName: string;
  /** `--sandbox`: each thread's tools run in its own bubblewrap sandbox. */
  sandbox?: boolean;
  /** The interactive UI shows extension dialogs (`capabilities.extensionDialogs`); print mode does not. */
  extensionDialogs?: boolean;
  /**
   * The interactive UI draws extensions' pi-tui components: the in-process server hands
   * them over, and extensions import the real pi-tui (not the inert stand-in) to build them.
   */
  components?: LiveComponentSurface;
}

/**
 * What a connection that can drop (`--remote`) does after the first attach, for the
 * screen to show: the handlers are set by whoever draws, and called by the transport.
 */
export interface ConnectionEvents {
  /** The connection dropped and is being made again; `attempt` counts from 1. */
  onReconnecting?(attempt: number, error: Error | undefined): void;
  /** A new connection is up and the followed threads are resumed. */
  onReconnected?(): void;
  /** The server no longer held a thread's gap: its resume snapshot, to redraw from. */
  onGap?(threadId: string, resumed: ThreadResumeResult): void;
}

/** A connected client plus the teardown that flushes sessions and releases the host. */
export interface TerminalClient {
  client: AppServerClient;
  close(): Promise<void>;
  /** Set for a connection that can drop and come back (`--remote`). */
  connection?: ConnectionEvents;
}

/** Builds the host, connects and performs the handshake. */
export async function connectTerminalClient(options: TerminalClientOptions): Promise<TerminalClient> {
  if (options.components) await useRealTuiForExtensions();
  // The store has no memory-only mode; a throwaway folder outside the agent and project
  // dirs, removed on close, leaves nothing behind.
  const scratch = options.noSession ? mkdtempSync(join(tmpdir(), "knightcode-no-session-")) : undefined;
  const host = startLazyHost({
    cwd: options.cwd,
    extensions: options.extensions,
    ...(options.extensionFlags === undefined ? {} : { extensionFlags: options.extensionFlags }),
    ...(scratch !== undefined
      ? { sessionDir: scratch }
      : options.sessionDir !== undefined
        ? { sessionDir: options.sessionDir }
        : {}),
    ...(options.sandbox === true ? { sandbox: true } : {}),
  });
  const connection = await createInProcessClient({
    ...host.serverOptions,
    clientKind: "terminal",
    ...(options.extensionDialogs === true ? { extensionDialogs: true } : {}),
    ...(options.components ? { components: options.components } : {}),
    clientInfo: { name: options.clientName, version: "0.1.0" },
  });
  let closing: Promise<void> | undefined;
  return {
    client: connection.client,
    close: () => {
      closing ??= (async () => {
        try {
          await connection.close();
          await host.dispose();
        } finally {
          if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
        }
      })();
      return closing;
    },
  };
}
