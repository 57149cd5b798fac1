/**
 * One running MCP server: the SDK client over a stdio or streamable-HTTP transport, its
 * lifecycle (`starting` -> `ready`, or `failed`; `stopped` once closed), its tool list
 * (refetched after `notifications/tools/list_changed`, before the next use), its tool
 * calls, and likewise its prompts (listed only when the server declares the `prompts`
 * capability) and `prompts/get`, and its resources and resource templates (listed when it
 * declares `resources`, refetched after `notifications/resources/list_changed`) and
 * `resources/read`. Events tell the threads sharing it that it failed or changed.
 */
import { resolve } from "node:path";
import { isErrnoCode, type McpServerSettings } from "@knightcode/config";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { AuthorizationOpener } from "./authorization-opener.ts";
import { allPages, ChangedList } from "./changed-list.ts";
import type { OAuthFlow } from "./oauth-flow.ts";
import { type SamplingCall, SamplingCalls } from "./sampling-calls.ts";
import { loadMcpSdk, type McpSdk } from "./sdk.ts";
import { serverEnvironment } from "./server-env.ts";

/** Connect-and-initialize timeout when a config gives none. */
export const DEFAULT_START_TIMEOUT_MS = 30_000;
/** A tool call may run this long (progress notifications extend it); an interrupt aborts it sooner. */
export const TOOL_CALL_TIMEOUT_MS = 10 * 60_000;
/** A `prompts/get` may take this long; it renders text, so it is far shorter than a tool call. */
export const PROMPT_GET_TIMEOUT_MS = 60_000;
/** A `resources/read` may take as long as a `prompts/get`. */
export const RESOURCE_READ_TIMEOUT_MS = PROMPT_GET_TIMEOUT_MS;

/** Where a connection is in its life. */
export type ConnectionState = "starting" | "ready" | "failed" | "stopped";

/** What a connection tells the threads that share it. */
export type ConnectionEvent =
  | { type: "failed"; message: string }
  | { type: "toolsChanged" }
  | { type: "notice"; message: string };

/** How to reach one server. */
export interface ConnectionOptions {
  /** The name stderr lines and messages carry. */
  name: string;
  config: McpServerSettings;
  /** The thread's cwd: the default (and the base of a relative) server cwd. */
  cwd: string;
  /** KnightCode's environment, of which a stdio server inherits only PATH, HOME and LANG. */
  env: Record<string, string | undefined>;
  /** Where the server's stderr lines go, labelled with its name; never our stdout. */
  log(line: string): void;
  clientVersion: string;
  /** OAuth for HTTP servers that ask for it: where credentials are kept, how the user is sent to sign in. */
  oauth?: { dir: string; open: AuthorizationOpener };
}

/** One server process or HTTP session, shared by the threads with the same config and cwd. */
export class McpServerConnection {
  state: ConnectionState = "starting";
  /** Why the server failed or stopped. */
  error: string | undefined;
  #tools: Tool[] = [];
  readonly #toolsChanged: ChangedList;
  #prompts: Prompt[] = [];
  readonly #promptsChanged: ChangedList;
  #resources: Resource[] = [];
  #resourceTemplates: ResourceTemplate[] = [];
  readonly #resourcesChanged: ChangedList;
  readonly #listeners = new Set<(event: ConnectionEvent) => void>();
  // created when the SDK has loaded, at the start of `start()`
  #sdk: McpSdk | undefined;
  #client: Client | undefined;
  #transport: Transport | undefined;
  readonly #samplingCalls = new SamplingCalls();
  #oauth: OAuthFlow | undefined;
  #junkReported = false;
  #exitedWhileStarting: string | undefined;
  #started: Promise<void> | undefined;

  constructor(private readonly options: ConnectionOptions) {
    const log = (line: string) => options.log(`[mcp:${options.name}] ${line}`);
    this.#toolsChanged = new ChangedList("tool list", log);
    this.#promptsChanged = new ChangedList("prompt list", log);
    this.#resourcesChanged = new ChangedList("resource list", log);
  }

  /** The server's process ID (stdio servers, once spawned). */
  get pid(): number | undefined {
    const stdio = this.#sdk?.ChildStdioTransport;
    return stdio !== undefined && this.#transport instanceof stdio ? this.#transport.pid : undefined;
  }

  /** The SDK client, once `start()` loaded the SDK. */
  #sdkClient(sdk: McpSdk): Client {
    const client = new sdk.Client(
      { name: "knightcode", version: this.options.clientVersion },
      { capabilities: { sampling: {} } },
    );
    client.setRequestHandler(sdk.CreateMessageRequestSchema, (request, extra) =>
      this.#samplingCalls.answer(sdk, this.options.name, request.params, extra.signal),
    );
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, async () => {
      this.#toolsChanged.stale = true;
      this.#emit({ type: "toolsChanged" });
    });
    client.setNotificationHandler(sdk.PromptListChangedNotificationSchema, async () => {
      this.#promptsChanged.stale = true;
    });
    client.setNotificationHandler(sdk.ResourceListChangedNotificationSchema, async () => {
      this.#resourcesChanged.stale = true;
    });
    return client;
  }

  /** The tools as last listed. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** The prompts as last listed; none when the server does not offer prompts. */
  get prompts(): readonly Prompt[] {
    return this.#prompts;
  }

  /** The resources as last listed; none when the server does not offer resources. */
  get resources(): readonly Resource[] {
    return this.#resources;
  }

  /** The resource templates as last listed (listed again with the resources). */
  get resourceTemplates(): readonly ResourceTemplate[] {
    return this.#resourceTemplates;
  }

  /** Subscribes to events; returns the unsubscribe function. */
  on(listener: (event: ConnectionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: ConnectionEvent): void {
    for (const listener of this.#listeners) listener(event);
  }

  /** Connects, initializes and lists the tools, all within the start timeout. Never rejects. */
  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start(): Promise<void> {
    if (this.state !== "starting") return;
    const timeoutMs = this.options.config.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((done) => {
      timer = setTimeout(() => done("timeout"), timeoutMs);
    });
    try {
      const outcome = await Promise.race([
        (async () => {
          const sdk = await loadMcpSdk();
          this.#sdk = sdk;
          const client = this.#sdkClient(sdk);
          this.#client = client;
          if (this.state !== "starting") return "closed" as const; // closed while the SDK loaded
          this.#transport = this.#createTransport(sdk);
          await this.#connect(sdk, client, timeoutMs);
          await this.#listTools(timeoutMs);
          // A server whose prompt list fails still offers its tools.
          await this.#listPrompts(timeoutMs).catch((error) =>
            this.options.log(`[mcp:${this.options.name}] listing its prompts failed: ${String(error)}`),
          );
          await this.#listResources(timeoutMs).catch((error) =>
            this.options.log(`[mcp:${this.options.name}] listing its resources failed: ${String(error)}`),
          );
          return "ready" as const;
        })(),
        timedOut,
      ]);
      if (outcome === "timeout") throw new Error(`did not finish starting within ${timeoutMs} ms`);
      if (this.state === "starting") this.state = "ready";
    } catch (error) {
      const detail = this.#exitedWhileStarting ?? describeStartError(error, this.options.config);
      await this.#fail(`could not start: ${detail}`, false);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Connects; a server that answers 401 sends the user to sign in (the SDK's flow), and
   * once the loopback redirect brings the code, the tokens are fetched and stored and a
   * fresh client connects with them. All within the start timeout.
   */
  async #connect(sdk: McpSdk, client: Client, timeoutMs: number): Promise<void> {
    try {
      await client.connect(this.#transport!, { timeout: timeoutMs });
      return;
    } catch (error) {
      if (this.#oauth === undefined || !(error instanceof sdk.UnauthorizedError)) throw error;
    }
    const flow = this.#oauth;
    const code = await flow.code();
    const transport = this.#transport as InstanceType<McpSdk["StreamableHTTPClientTransport"]>;
    await transport.finishAuth(code);
    await transport.close().catch(() => undefined);
    if (this.state !== "starting") return;
    const signedIn = this.#sdkClient(sdk);
    this.#client = signedIn;
    this.#transport = this.#createTransport(sdk);
    await signedIn.connect(this.#transport, { timeout: timeoutMs });
    this.options.log(`[mcp:${this.options.name}] signed in; credentials saved to ${flow.store.path}`);
  }

  #createTransport(sdk: McpSdk): Transport {
    const { config, name } = this.options;
    if ("url" in config) {
      const oauth = this.options.oauth;
      if (oauth !== undefined) this.#oauth ??= new sdk.OAuthFlow(name, config.url, oauth.dir, oauth.open);
      return new sdk.StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: { ...(config.headers ?? {}) } },
        ...(this.#oauth !== undefined ? { authProvider: this.#oauth.provider() } : {}),
      });
    }
    const transport = new sdk.ChildStdioTransport(
      {
        command: config.command,
        args: config.args ?? [],
        env: serverEnvironment(this.options.env, config.env),
        cwd: config.cwd !== undefined ? resolve(this.options.cwd, config.cwd) : this.options.cwd,
      },
      {
        stderrLine: (line) => this.options.log(`[mcp:${name}] ${line}`),
        junkLine: (error) => {
          this.options.log(`[mcp:${name}] skipped a stdout line that is not JSON-RPC: ${error.message}`);
          if (this.#junkReported) return;
          this.#junkReported = true;
          this.#emit({
            type: "notice",
            message: `MCP server "${name}" wrote output that is not JSON-RPC on stdout; those lines were skipped`,
          });
        },
        exited: (code, signal) => {
          const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
          // While starting, the start's own failure reports it, naming the exit.
          if (this.state === "starting") this.#exitedWhileStarting = how;
          if (this.state !== "ready") return;
          void this.#fail(`${how}; its tools are unavailable until the thread is reloaded`, true);
        },
      },
    );
    return transport;
  }

  async #listTools(timeoutMs?: number): Promise<void> {
    const client = this.#client;
    if (client === undefined) return;
    this.#tools = await allPages(async (cursor) => {
      const result = await client.listTools(
        cursor !== undefined ? { cursor } : {},
        timeoutMs !== undefined ? { timeout: timeoutMs } : {},
      );
      return { items: result.tools, nextCursor: result.nextCursor };
    });
  }

  async #listPrompts(timeoutMs: number): Promise<void> {
    const client = this.#client;
    if (client === undefined || client.getServerCapabilities()?.prompts === undefined) return;
    this.#prompts = await allPages(async (cursor) => {
      const result = await client.listPrompts(cursor !== undefined ? { cursor } : {}, { timeout: timeoutMs });
      return { items: result.prompts, nextCursor: result.nextCursor };
    });
  }

  async #listResources(timeoutMs: number): Promise<void> {
    const client = this.#client;
    if (client === undefined || client.getServerCapabilities()?.resources === undefined) return;
    const options = { timeout: timeoutMs };
    const [resources, templates] = await Promise.all([
      allPages(async (cursor) => {
        const result = await client.listResources(cursor !== undefined ? { cursor } : {}, options);
        return { items: result.resources, nextCursor: result.nextCursor };
      }),
      // A server may offer resources and no templates; its refusal leaves the list empty.
      allPages(async (cursor) => {
        const result = await client.listResourceTemplates(cursor !== undefined ? { cursor } : {}, options);
        return { items: result.resourceTemplates, nextCursor: result.nextCursor };
      }).catch(() => [] as ResourceTemplate[]),
    ]);
    this.#resources = resources;
    this.#resourceTemplates = templates;
  }

  /** Refetches the resources and templates if the server said they changed; keeps the old lists when that fails. */
  async refreshResources(): Promise<void> {
    if (this.state !== "ready") return;
    await this.#resourcesChanged.refresh(() => this.#listResources(DEFAULT_START_TIMEOUT_MS));
  }

  /** Reads one resource (`resources/read`); rejects when the server is gone, refuses or times out. */
  async readResource(uri: string): Promise<ReadResourceResult> {
    const client = this.#client;
    if (this.state !== "ready" || client === undefined) {
      throw new Error(`MCP server "${this.options.name}" is ${this.state}`);
    }
    return client.readResource({ uri }, { timeout: RESOURCE_READ_TIMEOUT_MS });
  }

  /**
   * Completes one argument of a prompt (`completion/complete`), given the arguments set
   * so far; no values when the server does not offer completions. Rejects when it is gone.
   */
  async completePromptArgument(
    prompt: string,
    argument: { name: string; value: string },
    context: Record<string, string>,
  ): Promise<{ values: string[]; hasMore: boolean }> {
    const client = this.#client;
    if (this.state !== "ready" || client === undefined) {
      throw new Error(`MCP server "${this.options.name}" is ${this.state}`);
    }
    if (client.getServerCapabilities()?.completions === undefined) return { values: [], hasMore: false };
    const { completion } = await client.complete(
      { ref: { type: "ref/prompt", name: prompt }, argument, context: { arguments: context } },
      { timeout: PROMPT_GET_TIMEOUT_MS },
    );
    return { values: completion.values, hasMore: completion.hasMore === true };
  }

  /** Refetches the prompt list if the server said it changed; keeps the old list when that fails. */
  async refreshPrompts(): Promise<void> {
    if (this.state !== "ready") return;
    await this.#promptsChanged.refresh(() => this.#listPrompts(DEFAULT_START_TIMEOUT_MS));
  }

  /** Renders one prompt (`prompts/get`); rejects when the server is gone, refuses or times out. */
  async getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult> {
    const client = this.#client;
    if (this.state !== "ready" || client === undefined) {
      throw new Error(`MCP server "${this.options.name}" is ${this.state}`);
    }
    return client.getPrompt({ name, arguments: args }, { timeout: PROMPT_GET_TIMEOUT_MS });
  }

  /** Refetches the tool list if the server said it changed; keeps the old list when that fails. */
  async refreshTools(): Promise<void> {
    if (this.state !== "ready") return;
    await this.#toolsChanged.refresh(() => this.#listTools(DEFAULT_START_TIMEOUT_MS));
  }

  /**
   * Calls one tool; rejects when the server is gone, the call times out or `signal`
   * aborts. With `sampling`, the server's sampling requests while it runs go to it.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    sampling?: SamplingCall,
  ): Promise<CallToolResult> {
    const client = this.#client;
    const sdk = this.#sdk;
    if (this.state !== "ready" || client === undefined || sdk === undefined) {
      throw new Error(`MCP server "${this.options.name}" is ${this.state}`);
    }
    const result = await this.#samplingCalls.during(sampling, () =>
      client.callTool({ name, arguments: args }, sdk.CallToolResultSchema, {
        signal,
        timeout: TOOL_CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
      }),
    );
    return result as CallToolResult;
  }

  async #fail(message: string, announce: boolean): Promise<void> {
    if (this.state === "stopped" || this.state === "failed") return;
    this.state = "failed";
    this.error = message;
    this.#tools = [];
    this.#prompts = [];
    this.#resources = [];
    this.#resourceTemplates = [];
    this.options.log(`[mcp:${this.options.name}] ${message}`);
    if (announce) this.#emit({ type: "failed", message: `MCP server "${this.options.name}" ${message}` });
    await this.#closeTransport();
  }

  /** Stops the server (its process, or the HTTP session). */
  async close(): Promise<void> {
    if (this.state === "stopped") return;
    const wasFailed = this.state === "failed";
    this.state = "stopped";
    if (!wasFailed) this.error = undefined;
    this.#tools = [];
    this.#prompts = [];
    this.#resources = [];
    this.#resourceTemplates = [];
    await this.#closeTransport();
  }

  async #closeTransport(): Promise<void> {
    this.#oauth?.close();
    try {
      await this.#client?.close();
    } catch {
      // Closing a transport that never started, or one already gone.
    }
    // The client only closes a transport it connected; one that failed to start is closed here.
    await this.#transport?.close().catch(() => undefined);
  }
}

function describeStartError(error: unknown, config: McpServerSettings): string {
  if (isErrnoCode(error, "ENOENT") && "command" in config) return `command not found: ${config.command}`;
  if (isErrnoCode(error, "EACCES") && "command" in config) return `command not executable: ${config.command}`;
  return error instanceof Error ? error.message : String(error);
}
