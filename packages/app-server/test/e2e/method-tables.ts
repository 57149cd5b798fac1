/**
 * Request params for each method of the spec's method reference: ones that validate (for
 * the common errors before the handshake) and ones the validator refuses. The coverage
 * test checks these tables list exactly the spec's methods.
 */
import type { ClientRequestMethod } from "@knightcode/app-server-protocol";

/** Params that pass validation for each method of the spec's method reference (the thread is unknown). */
export const WELL_FORMED: Partial<Record<ClientRequestMethod, unknown>> = {
  "turn/queue/remove": { threadId: "nope", queueId: "q" },
  "config/read": {},
  "config/write": { scope: "global", key: "theme", value: "dark" },
  "project/trust/read": { cwd: "/" },
  "project/trust/set": { cwd: "/", trusted: true },
  "file/search": { cwd: "/", query: "a" },
  "command/list": { cwd: "/" },
  "thread/delete": { threadId: "nope" },
  "server/diagnostics": {},
  "thread/shell/run": { threadId: "nope", command: "true" },
  "thread/undo": { threadId: "nope" },
  "thread/tree/read": { threadId: "nope" },
  "thread/tree/navigate": { threadId: "nope", entryId: null },
  "mcpServer/resource/read": { threadId: "nope", server: "s", uri: "demo://x" },
  "command/complete": { threadId: "nope", text: "/mcp__s__p " },
  "thread/diff": { threadId: "nope", against: "base" },
  "worktree/merge": { threadId: "nope", strategy: "squash" },
  "worktree/remove": { threadId: "nope" },
  "worktree/list": {},
};

/** Params each method's validator refuses. */
export const MALFORMED: Partial<Record<ClientRequestMethod, unknown>> = {
  "turn/queue/remove": { threadId: "t" },
  "config/read": { cwd: 5 },
  "config/write": { scope: "everywhere", key: "theme", value: 1 },
  "project/trust/read": {},
  "project/trust/set": { cwd: "/", trusted: "yes" },
  "file/search": { cwd: "/", query: "" },
  "command/list": { cwd: 7 },
  "thread/delete": {},
  "server/diagnostics": [],
  "thread/shell/run": { threadId: "t", command: "" },
  "thread/undo": { threadId: "" },
  "thread/tree/read": {},
  "thread/tree/navigate": { threadId: "t" },
  "mcpServer/resource/read": { threadId: "t", server: "s", uri: "" },
  "command/complete": { threadId: "t", text: "" },
  "thread/diff": { threadId: "t", against: "HEAD" },
  "worktree/merge": { threadId: "t", strategy: "octopus" },
  "worktree/remove": { threadId: "t", force: "yes" },
  "worktree/list": { cwd: 3 },
};
