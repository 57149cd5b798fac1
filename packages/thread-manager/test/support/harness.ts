/**
 * Test harness: a ThreadManager on a temp agent dir, talking to the testkit's mock model
 * server over real HTTP through the real provider code, with a recording event sink and
 * a ServerRequestPort whose answers each test scripts.
 */
import type { AnyAgentTool } from "@knightcode/agent";
import { type Model, streamModel } from "@knightcode/ai";
import type {
  ItemToolCallRequestApprovalParams,
  ItemToolCallRequestApprovalResult,
  ServerNotification,
} from "@knightcode/app-server-protocol";
import {
  type MockModelServer,
  startMockModelServer,
  type TempAgentDir,
  tempAgentDir,
} from "@knightcode/testkit";
import {
  type Caller,
  type CompactionHooks,
  createThreadManager,
  type ExtensionHostFactory,
  ManualClock,
  staticModelSource,
  type ThreadManager,
  type ThreadManagerEvent,
  type ThreadManagerOptions,
} from "../../src/index.ts";

/** An approval request as the test port saw it. */
export interface SeenApproval {
  connectionId: string;
  params: ItemToolCallRequestApprovalParams;
  cancelled: boolean;
  answer(result: ItemToolCallRequestApprovalResult): void;
  fail(error: Error): void;
}

export interface Harness extends AsyncDisposable {
  dir: TempAgentDir;
  server: MockModelServer;
  manager: ThreadManager;
  clock: ManualClock;
  model: Model;
  /** The models the manager's source offers; tests may empty it. */
  models: Model[];
  events: ThreadManagerEvent[];
  approvals: SeenApproval[];
  /** Called for each approval request; default leaves it open for the test. */
  onApproval: (approval: SeenApproval) => void;
  desktop(id?: string): Caller;
  terminal(id?: string): Caller;
  /** Notifications one connection would receive, in order. */
  received(connectionId: string): ServerNotification[];
  /** Resolves with the first event (from `from` on) matching, or rejects after a timeout. */
  waitFor(
    match: (n: ServerNotification, e: ThreadManagerEvent) => boolean,
    from?: number,
  ): Promise<ServerNotification>;
  waitForApproval(index?: number): Promise<SeenApproval>;
}

export interface HarnessOptions {
  tools?: (cwd: string) => AnyAgentTool[];
  extensions?: ExtensionHostFactory;
  compaction?: CompactionHooks;
  reasoning?: boolean;
  noModel?: boolean;
  /** Global settings.json contents. */
  settings?: unknown;
  /** Further manager options (session dir, env, tool operations, home), given the temp dirs. */
  manager?: (dir: TempAgentDir) => Partial<ThreadManagerOptions>;
  contextWindow?: number;
}

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = await tempAgentDir(options.settings !== undefined ? { settings: options.settings } : {});
  const server = await startMockModelServer();
  const clock = new ManualClock(Date.parse("2026-01-01T00:00:00Z"));
  const model: Model = {
    id: "mock-model",
    name: "Mock",
    api: "openai-completions",
    provider: "mock",
    baseUrl: server.baseUrl,
    reasoning: options.reasoning ?? false,
    input: ["text", "image"],
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    contextWindow: options.contextWindow ?? 100_000,
    maxTokens: 4096,
    thinkingLevels: options.reasoning ? ["off", "low", "high"] : ["off"],
  };
  const models: Model[] = options.noModel ? [] : [model];
  const events: ThreadManagerEvent[] = [];
  const approvals: SeenApproval[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  const manager = createThreadManager({
    agentDir: dir.agentDir,
    env: {},
    clock,
    models: staticModelSource(models, { mock: "test-key" }),
    streamFn: streamModel,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.extensions ? { extensionHostFactory: options.extensions } : {}),
    ...(options.compaction ? { compaction: options.compaction } : {}),
    ...options.manager?.(dir),
  });
  manager.onEvent((event) => {
    events.push(event);
    wake();
  });
  const harness: Harness = {
    dir,
    server,
    manager,
    clock,
    model,
    models,
    events,
    approvals,
    onApproval: () => {},
    desktop: (id = "c1") => ({ connectionId: id, clientKind: "desktop" }),
    terminal: (id = "t1") => ({ connectionId: id, clientKind: "terminal" }),
    received: (connectionId) =>
      events
        .filter((e) => e.audience === "everyone" || e.connectionIds.includes(connectionId))
        .map((e) => e.notification),
    waitFor(match, from = 0) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("timed out waiting for a notification")), 10_000);
        const check = () => {
          for (let i = from; i < events.length; i++) {
            const e = events[i]!;
            if (match(e.notification, e)) {
              clearTimeout(timer);
              resolve(e.notification);
              return;
            }
          }
          waiters.push(check);
        };
        check();
      });
    },
    waitForApproval(index = approvals.length) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("timed out waiting for an approval")), 10_000);
        const check = () => {
          const seen = approvals[index];
          if (seen) {
            clearTimeout(timer);
            resolve(seen);
          } else waiters.push(check);
        };
        check();
      });
    },
    async [Symbol.asyncDispose]() {
      await manager.closeAll();
      await server.close();
      await dir[Symbol.asyncDispose]();
    },
  };
  manager.attachServerRequests({
    requestApproval(connectionId, params) {
      let answer!: (r: ItemToolCallRequestApprovalResult) => void;
      let fail!: (e: Error) => void;
      const response = new Promise<ItemToolCallRequestApprovalResult>((resolve, reject) => {
        answer = resolve;
        fail = reject;
      });
      const seen: SeenApproval = { connectionId, params, cancelled: false, answer, fail };
      approvals.push(seen);
      harness.onApproval(seen);
      wake();
      return {
        response,
        cancel: () => {
          seen.cancelled = true;
          wake();
        },
      };
    },
  });
  return harness;
}

/** The method names of a list of notifications, optionally filtered. */
export function methods(list: ServerNotification[], keep: (m: string) => boolean = () => true): string[] {
  return list.map((n) => n.method).filter(keep);
}
