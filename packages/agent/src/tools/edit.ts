/** The `edit` tool: exact-match replacements in an existing file, with a unified diff. */
import type { Static } from "typebox";
import type { AgentTool, FileChange } from "../types.ts";
import { applyEdits } from "./edit-match.ts";
import { fileChange, firstChangedLine, previewChange, unifiedDiff } from "./file-diff.ts";
import { resolveToolPath } from "./paths.ts";
import { decodeTextFile } from "./text-decode.ts";
import { type ToolEnv, text } from "./tool-env.ts";
import { withTypeBoxKinds } from "./typebox-kinds.ts";

/** Arguments of `edit`. */
export const EditParams = withTypeBoxKinds({
  type: "object",
  required: ["path", "edits"],
  properties: {
    path: { type: "string", description: "File to edit, relative to the working directory or absolute" },
    edits: {
      type: "array",
      items: {
        type: "object",
        required: ["oldText", "newText"],
        properties: {
          oldText: { type: "string", description: "Text to find; must match exactly one place in the file" },
          newText: { type: "string", description: "Replacement text" },
        },
      },
      minItems: 1,
      description: "Replacements, each matched against the file as it was before this call",
    },
  },
} as const);
/** The static type of {@link EditParams}. */
export type EditParams = Static<typeof EditParams>;

/** Details of an `edit` result. */
export interface EditDetails {
  path: string;
  diff?: string;
  firstChangedLine: number;
  fileChanges: FileChange[];
}

const BOM = "\uFEFF";

/** The file's text before and after the call, and the diff a reader sees; throws what `execute` would. */
async function planEdit(env: ToolEnv, path: string, args: EditParams) {
  const info = await env.ops.stat(path);
  if (!info) throw new Error(`File not found: ${args.path}. Use write to create a new file.`);
  if (!info.isFile) throw new Error(`${args.path} is not a regular file.`);
  // The mark stays in the string (the default decoder silently eats it) so it can be written back.
  const raw = decodeTextFile(await env.ops.readFile(path));
  if (raw === undefined) {
    throw new Error(
      `${args.path} is binary or not UTF-8 text; edit only changes UTF-8 text files. Use bash for other files.`,
    );
  }
  const bom = raw.startsWith(BOM) ? BOM : "";
  const before = raw.slice(bom.length);
  const after = applyEdits(before, args.edits, args.path);
  // The diff is for reading, so it shows LF endings whatever the file uses.
  const lfBefore = before.replace(/\r\n/g, "\n");
  const lfAfter = after.replace(/\r\n/g, "\n");
  return { bom, after, lfBefore, lfAfter, diff: await unifiedDiff(path, lfBefore, lfAfter) };
}

/** Creates the `edit` tool. */
export function createEditTool(env: ToolEnv): AgentTool<typeof EditParams, EditDetails> {
  const resolvePath = (p: string) => resolveToolPath(p, env.cwd, env.ops.homeDir());
  return {
    name: "edit",
    label: "Edit",
    description:
      "Edit a file by replacing text. Each oldText must match exactly one place in the file (include enough surrounding lines to make it unique); all edits are matched against the file before the call. Line endings and a byte-order mark are kept.",
    parameters: EditParams,
    mutatedPaths: (args) => [resolvePath(args.path)],
    preview: (args) => {
      const path = resolvePath(args.path);
      const plan = async () => ({ kind: "modify" as const, diff: (await planEdit(env, path, args)).diff });
      return previewChange(path, plan, "modify");
    },
    async execute(args, ctx) {
      const path = resolvePath(args.path);
      const { bom, after, lfBefore, lfAfter, diff } = await planEdit(env, path, args);
      if (ctx.signal.aborted) throw new Error("Aborted before writing.");
      await env.ops.writeFile(path, bom + after);
      const count = args.edits.length;
      return {
        // The model knows what it asked for; the diff goes to details for UIs and file tracking.
        content: text(`Edited ${args.path}: ${count} replacement${count === 1 ? "" : "s"}.`),
        details: {
          path,
          ...(diff ? { diff } : {}),
          firstChangedLine: firstChangedLine(lfBefore, lfAfter),
          fileChanges: [fileChange(path, "modify", diff)],
        },
      };
    },
  };
}
