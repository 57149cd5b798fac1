/**
 * A tool that writes a note and reports what it changed in `details.fileChanges`, so
 * the client shows the change like an edit. The report is checked as a whole: a
 * malformed one (`report: "broken"`) is ignored entirely.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { ExtensionAPI } from "@knightcode/extensions";
import { Type } from "typebox";

export default function fileChangesTool(knightcode: ExtensionAPI) {
  knightcode.registerTool({
    name: "write_note",
    description: "Writes a note file inside the project.",
    parameters: Type.Object({
      path: Type.String(),
      text: Type.String(),
      report: Type.Optional(Type.Union([Type.Literal("valid"), Type.Literal("broken")])),
    }),
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const target = resolve(ctx.cwd, params.path);
      const existed = existsSync(target);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, params.text);
      const fileChanges =
        params.report === "broken"
          ? [{ path: target, kind: "rewrite" }]
          : [{ path: target, kind: existed ? "modify" : "add" }];
      return { content: [{ type: "text", text: `Wrote ${params.path}` }], details: { fileChanges } };
    },
  });
}
