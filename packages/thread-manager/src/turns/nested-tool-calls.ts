/**
 * Tool calls a tool runs itself (a sub-agent, a batch runner), reported in its partial
 * and final results as `details.nestedToolCalls: [{id, toolName, input?, status,
 * output?}]`. They become live items with `parentItemId` and no top-level index; like
 * the spec says, nested calls are live-only (history shows the parent call). A report is
 * checked as a whole: a malformed list is ignored.
 */
import type { ThreadItem } from "../shapes.ts";

type ToolCallItem = Extract<ThreadItem, { type: "toolCall" }>;

/** One nested call as a tool reports it. */
export interface NestedToolCall {
  id: string;
  toolName: string;
  input?: unknown;
  status: ToolCallItem["status"];
  output?: string;
}

const STATUSES = new Set(["inProgress", "completed", "failed", "declined"]);

function isNested(value: unknown): value is NestedToolCall {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.id === "string" &&
    v.id !== "" &&
    typeof v.toolName === "string" &&
    typeof v.status === "string" &&
    STATUSES.has(v.status) &&
    (v.output === undefined || typeof v.output === "string")
  );
}

/** The nested calls a result's details report, or undefined when absent or malformed. */
export function nestedToolCallsOf(details: unknown): NestedToolCall[] | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const report = (details as Record<string, unknown>).nestedToolCalls;
  return Array.isArray(report) && report.every(isNested) ? report : undefined;
}

/** Tracks which nested items were started and completed, so each is announced once. */
export class NestedCallItems {
  private readonly started = new Set<string>();
  private readonly completed = new Set<string>();

  constructor(
    private readonly send: (method: "item/started" | "item/completed", item: ToolCallItem) => void,
  ) {}

  /** Applies one report of `parentItemId`'s nested calls. */
  report(parentItemId: string, calls: readonly NestedToolCall[], now: number): void {
    for (const call of calls) {
      if (this.completed.has(call.id)) continue;
      const item: ToolCallItem = {
        id: call.id,
        type: "toolCall",
        toolName: call.toolName,
        status: call.status,
        parentItemId,
        ...(call.input !== undefined ? { input: call.input } : {}),
        ...(call.output !== undefined ? { output: call.output } : {}),
      };
      if (!this.started.has(call.id)) {
        this.started.add(call.id);
        this.send("item/started", { ...item, status: "inProgress", startedAt: now });
      }
      if (call.status !== "inProgress") {
        this.completed.add(call.id);
        this.send("item/completed", { ...item, completedAt: now });
      }
    }
  }
}
