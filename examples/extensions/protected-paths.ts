/**
 * Keeps the model's writes and edits away from files that must not change: `.env`
 * files, anything under `.git/` or `node_modules/`, and lock files.
 */
import { isAbsolute, relative, resolve } from "node:path";
import type { ExtensionAPI } from "@knightcode/extensions";

const PROTECTED = [
  /(^|\/)\.env(\.[^/]*)?$/,
  /(^|\/)\.git(\/|$)/,
  /(^|\/)node_modules(\/|$)/,
  /(^|\/)(bun\.lock|package-lock\.json)$/,
];

export default function protectedPaths(knightcode: ExtensionAPI) {
  knightcode.on("tool_call", (event, ctx) => {
    if (event.toolName !== "write" && event.toolName !== "edit") return undefined;
    const raw = String(event.input.path ?? "");
    const absolute = isAbsolute(raw) ? raw : resolve(ctx.cwd, raw);
    const shown = relative(ctx.cwd, absolute) || absolute;
    if (!PROTECTED.some((pattern) => pattern.test(shown) || pattern.test(absolute))) return undefined;
    return { block: true, reason: `${shown} is protected; it must not be written or edited.` };
  });
}
