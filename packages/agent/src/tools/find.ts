/** The `find` tool: list files matching a glob with fd (Debian installs it as `fdfind`). */
import type { Static } from "typebox";
import type { AgentTool } from "../types.ts";
import type { ToolOperations } from "./operations.ts";
import { resolveToolPath } from "./paths.ts";
import { runListing } from "./run-listing.ts";
import { type ToolEnv, text } from "./tool-env.ts";
import { formatSize, MAX_BYTES, truncateHead } from "./truncate.ts";
import { withTypeBoxKinds } from "./typebox-kinds.ts";

const DEFAULT_LIMIT = 1000;

/** Arguments of `find`. */
export const FindParams = withTypeBoxKinds({
  type: "object",
  required: ["pattern"],
  properties: {
    pattern: {
      type: "string",
      description: "Glob to match, e.g. '*.ts' (file names) or 'src/**/*.ts' (paths)",
    },
    path: { type: "string", description: "Folder to search; the working directory by default" },
    limit: { type: "integer", minimum: 1, description: `Maximum results (default ${DEFAULT_LIMIT})` },
  },
} as const);
/** The static type of {@link FindParams}. */
export type FindParams = Static<typeof FindParams>;

/** Details of a `find` result. */
export interface FindDetails {
  count: number;
  limitReached: boolean;
  /** The fd binary that ran. */
  binary: string;
}

/** The fd executable: `fd`, else Debian's `fdfind`; undefined when neither is installed. */
export async function findFdBinary(ops: ToolOperations): Promise<string | undefined> {
  return (await ops.which("fd")) ?? (await ops.which("fdfind"));
}

/** Creates the `find` tool. */
export function createFindTool(env: ToolEnv): AgentTool<typeof FindParams, FindDetails> {
  return {
    name: "find",
    label: "Find",
    description: `Find files by glob (fd; respects .gitignore, includes dotfiles). Paths are relative to the searched folder; at most ${DEFAULT_LIMIT} by default.`,
    parameters: FindParams,
    async execute(args, ctx) {
      const fd = await findFdBinary(env.ops);
      if (!fd) throw new Error("fd is not installed (looked for fd and fdfind), so find is unavailable.");
      const dir = resolveToolPath(args.path ?? ".", env.cwd, env.ops.homeDir());
      const info = await env.ops.stat(dir);
      if (!info) throw new Error(`Path not found: ${args.path}`);
      if (!info.isDirectory) throw new Error(`${args.path} is not a directory.`);
      const limit = args.limit ?? DEFAULT_LIMIT;
      const fdArgs = ["--glob", "--color=never", "--hidden", "--exclude", ".git"];
      let pattern = args.pattern;
      // fd matches a glob against the name only, unless it is told to use the whole (absolute) path.
      if (pattern.includes("/")) {
        fdArgs.push("--full-path");
        if (!pattern.startsWith("/") && !pattern.startsWith("**")) pattern = `**/${pattern}`;
      }
      fdArgs.push("--", pattern);
      const out = await runListing(env.ops, { file: fd, args: fdArgs, cwd: dir, limit, signal: ctx.signal });
      if (out.lines.length === 0) {
        if (out.exitCode !== 0 && out.exitCode !== null)
          throw new Error(`find failed: ${out.stderr || `fd exited with code ${out.exitCode}`}`);
        return { content: text("No files found."), details: { count: 0, limitReached: false, binary: fd } };
      }
      const lines = out.lines.sort();
      const truncation = truncateHead(lines.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
      let output = truncation.content;
      if (out.hitLimit) output += `\n\n[Stopped at ${limit} results; narrow the pattern or raise limit.]`;
      else if (truncation.truncated)
        output += `\n\n[Output cut at ${formatSize(MAX_BYTES)}; narrow the pattern.]`;
      return {
        content: text(output),
        details: { count: lines.length, limitReached: out.hitLimit, binary: fd },
      };
    },
  };
}
