/** The `grep` tool: search file contents with ripgrep. */
import { relative } from "node:path";
import type { Static } from "typebox";
import type { AgentTool } from "../types.ts";
import { resolveToolPath } from "./paths.ts";
import { runListing } from "./run-listing.ts";
import { type ToolEnv, text } from "./tool-env.ts";
import { formatSize, MAX_BYTES, truncateHead } from "./truncate.ts";
import { withTypeBoxKinds } from "./typebox-kinds.ts";

const DEFAULT_LIMIT = 100;
const MAX_LINE_CHARS = 500;

/** Arguments of `grep`. */
export const GrepParams = withTypeBoxKinds({
  type: "object",
  required: ["pattern"],
  properties: {
    pattern: { type: "string", description: "Regular expression (ripgrep syntax)" },
    path: { type: "string", description: "File or folder to search; the working directory by default" },
    glob: { type: "string", description: "Only files matching this glob, e.g. '*.ts'" },
    ignoreCase: { type: "boolean", description: "Case-insensitive search" },
    limit: { type: "integer", minimum: 1, description: `Maximum matches (default ${DEFAULT_LIMIT})` },
  },
} as const);
/** The static type of {@link GrepParams}. */
export type GrepParams = Static<typeof GrepParams>;

/** Details of a `grep` result. */
export interface GrepDetails {
  matches: number;
  limitReached: boolean;
  truncated: boolean;
}

/** Shows `target` relative to `cwd` when it is inside it, so output paths stay short. */
export function displayPath(target: string, cwd: string): string {
  const rel = relative(cwd, target);
  return rel === "" ? "." : rel.startsWith("..") ? target : rel;
}

/** Creates the `grep` tool. */
export function createGrepTool(env: ToolEnv): AgentTool<typeof GrepParams, GrepDetails> {
  return {
    name: "grep",
    label: "Grep",
    description: `Search file contents for a regular expression (ripgrep; respects .gitignore). Returns path:line:text, at most ${DEFAULT_LIMIT} matches by default.`,
    parameters: GrepParams,
    async execute(args, ctx) {
      const rg = await env.ops.which("rg");
      if (!rg) throw new Error("ripgrep (rg) is not installed, so grep is unavailable.");
      const target = resolveToolPath(args.path ?? ".", env.cwd, env.ops.homeDir());
      if (!(await env.ops.stat(target))) throw new Error(`Path not found: ${args.path}`);
      const limit = args.limit ?? DEFAULT_LIMIT;
      const rgArgs = [
        "--line-number",
        "--with-filename",
        "--no-heading",
        "--color=never",
        "--hidden",
        "--glob",
        "!.git",
      ];
      if (args.ignoreCase) rgArgs.push("--ignore-case");
      if (args.glob) rgArgs.push("--glob", args.glob);
      rgArgs.push("-e", args.pattern, "--", displayPath(target, env.cwd));
      const out = await runListing(env.ops, {
        file: rg,
        args: rgArgs,
        cwd: env.cwd,
        limit,
        signal: ctx.signal,
        // +2 for the "./" prefix removed below.
        maxLineChars: MAX_LINE_CHARS + 2,
      });
      // rg exits 1 for "no matches" and 2 for errors (bad regex, unreadable files).
      if (out.lines.length === 0) {
        if (out.exitCode === 2) throw new Error(`grep failed: ${out.stderr || "ripgrep exited with code 2"}`);
        return {
          content: text("No matches found."),
          details: { matches: 0, limitReached: false, truncated: false },
        };
      }
      // Searching "." makes rg prefix every path with "./"; the bare relative path reads better.
      const shown = out.lines.map((raw) => {
        const line = raw.startsWith("./") ? raw.slice(2) : raw;
        return line.length > MAX_LINE_CHARS
          ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} chars]`
          : line;
      });
      const truncation = truncateHead(shown.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
      let output = truncation.content;
      const notes: string[] = [];
      if (out.hitLimit)
        notes.push(`Stopped at ${limit} matches; narrow the pattern or path, or raise limit.`);
      if (truncation.truncated) notes.push(`Output cut at ${formatSize(MAX_BYTES)}; narrow the search.`);
      if (notes.length > 0) output += `\n\n[${notes.join(" ")}]`;
      return {
        content: text(output),
        details: { matches: out.lines.length, limitReached: out.hitLimit, truncated: truncation.truncated },
      };
    },
  };
}
