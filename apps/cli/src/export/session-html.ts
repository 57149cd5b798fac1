/**
 * A session as one self-contained HTML page: no script, no request past the file (a
 * Content-Security-Policy of `default-src 'none'` says so to the browser), styles
 * inline, images as data URIs. The branch's messages with markdown (model text is
 * rendered by the web client's sanitizing renderer), reasoning folded, tool calls with
 * input, output and diffs, compactions and branch summaries, token usage; the system
 * prompt and tool schemas only when asked for.
 */
import type {
  Thread,
  ThreadItem,
  TokenUsage,
  ToolCallItem,
  Turn,
  UserMessageItem,
} from "@knightcode/app-server-protocol";
import { escapeHtml } from "@knightcode/web/highlight";
import { renderMarkdown } from "@knightcode/web/markdown";
import { diffBodyLines, keyArgument } from "../interactive/tool-call-block.ts";
import { EXPORT_CSS } from "./export-style.ts";

/** A tool as the model is offered it. */
export interface ExportedTool {
  name: string;
  description: string;
  parameters: unknown;
}

/** Everything one export shows; `items` of every turn already resolved. */
export interface ExportedSession {
  thread: Thread;
  turns: (Turn & { items: ThreadItem[] })[];
  usage?: TokenUsage;
  system?: { systemPrompt: string; tools: ExportedTool[] };
  /** Unix milliseconds. */
  exportedAt: number;
}

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** The whole page. */
export function sessionHtml(session: ExportedSession): string {
  const { thread } = session;
  const title = thread.name ?? thread.title ?? "KnightCode session";
  const model =
    thread.model === undefined
      ? ""
      : ` · model <code>${escapeHtml(`${thread.model.provider}/${thread.model.id}`)}</code>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${EXPORT_CSS}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<p class="meta">Session <code>${escapeHtml(thread.id)}</code> in <code>${escapeHtml(thread.cwd)}</code>${model}<br>
Started ${escapeHtml(thread.createdAt)} · exported ${escapeHtml(new Date(session.exportedAt).toISOString())} by KnightCode</p>
${session.usage === undefined ? "" : usageTable(session.usage)}
</header>
${session.system === undefined ? "" : systemSection(session.system)}
<main>
${session.turns.map(turnHtml).join("\n")}
</main>
</body>
</html>
`;
}

function usageTable(usage: TokenUsage): string {
  const cells = [
    ["input", usage.input],
    ["output", usage.output],
    ["cache read", usage.cacheRead],
    ["cache write", usage.cacheWrite],
  ] as const;
  const context = usage.contextTokens === undefined ? "" : `<th>context</th>`;
  const contextCell =
    usage.contextTokens === undefined
      ? ""
      : `<td>${usage.contextTokens.toLocaleString("en")} / ${usage.contextWindow.toLocaleString("en")}</td>`;
  return `<table class="usage"><tr>${cells.map(([name]) => `<th>${name}</th>`).join("")}<th>cost</th>${context}</tr>
<tr>${cells.map(([, n]) => `<td>${n.toLocaleString("en")}</td>`).join("")}<td>$${usage.cost.toFixed(4)}</td>${contextCell}</tr></table>`;
}

function systemSection(system: NonNullable<ExportedSession["system"]>): string {
  const tools = system.tools
    .map(
      (tool) =>
        `<details><summary><code>${escapeHtml(tool.name)}</code> ${escapeHtml(firstLine(tool.description))}</summary><div class="body"><p>${escapeHtml(tool.description)}</p><pre>${escapeHtml(JSON.stringify(tool.parameters, null, 2))}</pre></div></details>`,
    )
    .join("\n");
  return `<section class="system">
<details><summary>System prompt</summary><div class="body"><pre>${escapeHtml(system.systemPrompt)}</pre></div></details>
<details><summary>Tools (${system.tools.length})</summary><div class="body">${tools}</div></details>
</section>`;
}

function turnHtml(turn: Turn & { items: ThreadItem[] }): string {
  const status =
    turn.status === "failed"
      ? `<p class="turn-status">Turn failed (${escapeHtml(turn.error?.kind ?? "other")}): ${escapeHtml(turn.error?.message ?? "")}</p>`
      : turn.status === "interrupted"
        ? `<p class="turn-status">Interrupted</p>`
        : "";
  return `<section class="turn" id="turn-${escapeHtml(turn.id)}">
${turn.items.map(itemHtml).join("\n")}
${status}
</section>`;
}

/** One item of a turn. */
export function itemHtml(item: ThreadItem): string {
  switch (item.type) {
    case "userMessage":
      return userHtml(item);
    case "agentMessage":
      return `<div class="assistant"><div class="role">Assistant</div>${renderMarkdown(item.text)}</div>`;
    case "reasoning":
      return `<details class="reasoning"><summary>Reasoning</summary><div class="body">${escapeHtml(item.text)}</div></details>`;
    case "toolCall":
      return toolHtml(item);
    case "compaction":
      return `<div class="marker compaction"><span class="role">Compacted · ${item.tokensBefore.toLocaleString("en")} tokens before</span><details><summary>Summary</summary><div class="body">${renderMarkdown(item.summary)}</div></details></div>`;
    case "extension":
      if (item.customType === "branch_summary")
        return `<div class="marker branch-summary"><span class="role">Branch summary</span>${renderMarkdown(item.text ?? "")}</div>`;
      return item.text === undefined
        ? ""
        : `<div class="marker extension"><span class="role">${escapeHtml(item.customType)}</span>${renderMarkdown(item.text)}</div>`;
  }
}

function userHtml(item: UserMessageItem): string {
  const images = (item.images ?? [])
    .map((image) =>
      "data" in image && "mimeType" in image
        ? `<img alt="attached image" src="data:${escapeHtml(image.mimeType)};base64,${escapeHtml(image.data)}">`
        : "",
    )
    .join("");
  return `<div class="user"><div class="role">User</div>${escapeHtml(item.text)}${images}</div>`;
}

const ICONS: Record<ToolCallItem["status"], string> = {
  completed: "✓",
  failed: "✗",
  declined: "⊘",
  inProgress: "●",
};

function toolHtml(item: ToolCallItem): string {
  const input = item.input ?? {};
  const key = keyArgument(item.toolName, input);
  const diffs = (item.fileChanges ?? [])
    .map(
      (change) =>
        `<div class="diff-file">${escapeHtml(`${change.kind} ${change.path}`)}</div>${diffHtml(change.diff ?? "")}`,
    )
    .join("");
  const output =
    item.output === undefined || item.output === ""
      ? ""
      : `<pre class="output">${escapeHtml(item.output)}</pre>`;
  return `<details class="tool${item.parentItemId === undefined ? "" : " nested"}"${diffs === "" ? "" : " open"}><summary><span class="status-${item.status}">${ICONS[item.status]}</span> <code>${escapeHtml(item.toolName)}</code> ${escapeHtml(key)}${item.status === "completed" ? "" : ` <em>${item.status}</em>`}</summary><div class="body">
<pre class="input">${escapeHtml(JSON.stringify(input, null, 2))}</pre>${diffs}${output}</div></details>`;
}

/** A unified diff, each line marked added, removed, hunk header or context. */
export function diffHtml(diff: string): string {
  const lines = diffBodyLines(diff).map((line) => {
    const kind = line.startsWith("+")
      ? "diff-add"
      : line.startsWith("-")
        ? "diff-del"
        : line.startsWith("@@")
          ? "diff-hunk"
          : "diff-ctx";
    return `<span class="${kind}">${escapeHtml(line)}</span>`;
  });
  return lines.length === 0 ? "" : `<pre class="diff">${lines.join("")}</pre>`;
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
