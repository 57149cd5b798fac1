/** The `write` tool: create or overwrite a file, creating parent folders. */
import { dirname } from "node:path";
import type { Static } from "typebox";
import type { AgentTool, FileChange } from "../types.ts";
import { fileChange, previewChange, unifiedDiff } from "./file-diff.ts";
import { resolveToolPath } from "./paths.ts";
import { decodeTextFile } from "./text-decode.ts";
import { type ToolEnv, text } from "./tool-env.ts";
import { withTypeBoxKinds } from "./typebox-kinds.ts";

/** Arguments of `write`. */
export const WriteParams = withTypeBoxKinds({
  type: "object",
  required: ["path", "content"],
  properties: {
    path: { type: "string", description: "File to write, relative to the working directory or absolute" },
    content: { type: "string", description: "The complete new content of the file" },
  },
} as const);
/** The static type of {@link WriteParams}. */
export type WriteParams = Static<typeof WriteParams>;

/** Details of a `write` result. */
export interface WriteDetails {
  path: string;
  diff?: string;
  fileChanges: FileChange[];
}

/** Whether the file exists and the diff the write makes; throws what `execute` would. */
async function planWrite(env: ToolEnv, path: string, args: WriteParams) {
  const info = await env.ops.stat(path);
  if (info?.isDirectory) throw new Error(`${args.path} is a directory.`);
  // Reading the old content of a FIFO would block forever.
  if (info && !info.isFile) throw new Error(`${args.path} is not a regular file.`);
  const existed = info !== undefined;
  // A binary file that is replaced gets no diff: its old text would be noise.
  const before = existed ? decodeTextFile(await env.ops.readFile(path)) : undefined;
  const diff = existed && before === undefined ? undefined : await unifiedDiff(path, before, args.content);
  return { existed, diff };
}

/** Creates the `write` tool. */
export function createWriteTool(env: ToolEnv): AgentTool<typeof WriteParams, WriteDetails> {
  const resolvePath = (p: string) => resolveToolPath(p, env.cwd, env.ops.homeDir());
  return {
    name: "write",
    label: "Write",
    description:
      "Write a file with the given content, replacing it if it exists and creating missing parent folders. Prefer edit for changes to existing files.",
    parameters: WriteParams,
    mutatedPaths: (args) => [resolvePath(args.path)],
    preview: (args) => {
      const path = resolvePath(args.path);
      const plan = async () => {
        const { existed, diff } = await planWrite(env, path, args);
        return { kind: existed ? ("modify" as const) : ("add" as const), diff };
      };
      return previewChange(path, plan, "add");
    },
    async execute(args, ctx) {
      const path = resolvePath(args.path);
      const { existed, diff } = await planWrite(env, path, args);
      if (ctx.signal.aborted) throw new Error("Aborted before writing.");
      await env.ops.mkdir(dirname(path));
      await env.ops.writeFile(path, args.content);
      const kind = existed ? "modify" : "add";
      const bytes = new TextEncoder().encode(args.content).length;
      return {
        content: text(`${kind === "add" ? "Created" : "Wrote"} ${args.path} (${bytes} bytes).`),
        details: { path, ...(diff ? { diff } : {}), fileChanges: [fileChange(path, kind, diff)] },
      };
    },
  };
}
