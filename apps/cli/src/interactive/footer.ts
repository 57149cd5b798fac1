/** The footer: where, which session, which model, and what it has cost so far. */
import { homedir } from "node:os";
import type { Thread, TokenUsage } from "@knightcode/app-server-protocol";
import { gitBranch } from "./git-branch.ts";
import type { Block } from "./ui/block.ts";
import { style } from "./ui/style.ts";
import { fitLine } from "./ui/text.ts";

/** `12.3k`-style counts. */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** The footer lines for a thread and its usage. */
export function footerLines(
  cwd: string,
  thread: Thread | undefined,
  usage: TokenUsage | undefined,
  width: number,
  branch?: string,
): string[] {
  const home = homedir();
  const folder = cwd.startsWith(home) ? `~${cwd.slice(home.length)}` : cwd;
  // the checkout's branch; a thread in a worktree names the worktree's instead (below)
  const where = branch === undefined || thread?.worktree !== undefined ? folder : `${folder} (${branch})`;
  const session = thread?.name ?? thread?.title;
  // in a worktree the branch says where the work goes; the folder is the server's
  const place = thread?.worktree === undefined ? where : `${where} · ⎇ ${thread.worktree.branch}`;
  const top = session === undefined ? place : `${place} · ${session}`;
  const model = thread?.model === undefined ? "no model" : `${thread.model.provider}/${thread.model.id}`;
  const thinking =
    thread?.thinkingLevel === undefined || thread.thinkingLevel === "off" ? "" : ` · ${thread.thinkingLevel}`;
  const parts: string[] = [];
  if (usage !== undefined) {
    parts.push(`↑${compactCount(usage.input)} ↓${compactCount(usage.output)}`);
    if (usage.cacheRead > 0 || usage.cacheWrite > 0)
      parts.push(`R${compactCount(usage.cacheRead)} W${compactCount(usage.cacheWrite)}`);
    parts.push(`$${usage.cost.toFixed(3)}`);
    if (usage.contextTokens !== undefined && usage.contextWindow > 0) {
      parts.push(
        `${((usage.contextTokens / usage.contextWindow) * 100).toFixed(1)}% of ${compactCount(usage.contextWindow)}`,
      );
    }
  }
  const mode = thread?.approvalMode === undefined ? "" : ` · ${thread.approvalMode}`;
  const bottom = `${parts.join(" ")}${parts.length > 0 ? "  " : ""}${model}${thinking}${mode}`;
  return [fitLine(style.muted(top), width), fitLine(style.muted(bottom), width)];
}

/** The footer block over mutable state. */
export class Footer implements Block {
  thread: Thread | undefined;
  usage: TokenUsage | undefined;
  /** Extension status lines (`ctx.ui.setStatus`), by key. */
  readonly statuses = new Map<string, string>();
  /** The connection's trouble (`--remote` reconnecting), shown first while it lasts. */
  connection: string | undefined;
  /** The git branch of the cwd (`refreshBranch` reads it again). */
  branch: string | undefined;
  constructor(private readonly cwd: string) {
    this.branch = gitBranch(cwd);
  }
  /** Reads the branch again (after a turn: a command may have switched it). */
  refreshBranch(): void {
    this.branch = gitBranch(this.cwd);
  }
  render(width: number): string[] {
    const lines = footerLines(this.cwd, this.thread, this.usage, width, this.branch);
    if (this.connection !== undefined) lines.unshift(fitLine(style.warning(this.connection), width));
    if (this.statuses.size === 0) return lines;
    return [...lines, fitLine(style.muted([...this.statuses.values()].join(" · ")), width)];
  }
}
