/** The `ls` tool: one folder's entries, folders marked with a trailing slash. */
import type { Static } from "typebox";
import type { AgentTool } from "../types.ts";
import { resolveToolPath } from "./paths.ts";
import { type ToolEnv, text } from "./tool-env.ts";
import { truncateHead } from "./truncate.ts";
import { withTypeBoxKinds } from "./typebox-kinds.ts";

const DEFAULT_LIMIT = 500;

/** Arguments of `ls`. */
export const LsParams = withTypeBoxKinds({
  type: "object",
  properties: {
    path: { type: "string", description: "Folder to list; the working directory by default" },
    limit: { type: "integer", minimum: 1, description: `Maximum entries (default ${DEFAULT_LIMIT})` },
  },
} as const);
/** The static type of {@link LsParams}. */
export type LsParams = Static<typeof LsParams>;

/** Details of an `ls` result. */
export interface LsDetails {
  count: number;
  limitReached: boolean;
}

/** Creates the `ls` tool. */
export function createLsTool(env: ToolEnv): AgentTool<typeof LsParams, LsDetails> {
  return {
    name: "ls",
    label: "List",
    description: `List a folder's entries (including dotfiles), sorted by name; folders end with '/'. At most ${DEFAULT_LIMIT} entries by default.`,
    parameters: LsParams,
    async execute(args) {
      const dir = resolveToolPath(args.path ?? ".", env.cwd, env.ops.homeDir());
      const info = await env.ops.stat(dir);
      if (!info) throw new Error(`Path not found: ${args.path ?? "."}`);
      if (!info.isDirectory) throw new Error(`${args.path} is not a directory.`);
      const entries = (await env.ops.readdir(dir))
        .map((e) => (e.isDirectory ? `${e.name}/` : e.name))
        .sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
      if (entries.length === 0)
        return { content: text("(empty directory)"), details: { count: 0, limitReached: false } };
      const limit = args.limit ?? DEFAULT_LIMIT;
      const shown = entries.slice(0, limit);
      let output = truncateHead(shown.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER }).content;
      const limitReached = entries.length > limit;
      if (limitReached) output += `\n\n[${entries.length - limit} more entries; raise limit to see them.]`;
      return { content: text(output), details: { count: shown.length, limitReached } };
    },
  };
}
