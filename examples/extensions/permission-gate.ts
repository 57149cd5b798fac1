/**
 * A permission gate for shell commands: dangerous ones (recursive deletes, sudo, disk
 * formatting, piping a download into a shell) are blocked unless a user confirms. Without
 * a UI (the desktop app server today) `confirm` answers `false` at once, so they are
 * blocked; the model reads the reason and can choose another way.
 */
import type { ExtensionAPI } from "@knightcode/extensions";

const DANGEROUS: { pattern: RegExp; why: string }[] = [
  { pattern: /\brm\s+(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\b/, why: "recursive delete" },
  { pattern: /\bsudo\b/, why: "runs as root" },
  { pattern: /\bmkfs(\.\w+)?\b|\bdd\s+.*\bof=\/dev\//, why: "overwrites a disk" },
  { pattern: /\b(curl|wget)\b[^|]*\|\s*(ba|z)?sh\b/, why: "runs a downloaded script" },
  { pattern: /\bchmod\s+(-R\s+)?777\b/, why: "opens permissions to everyone" },
];

export default function permissionGate(knightcode: ExtensionAPI) {
  knightcode.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash") return undefined;
    const command = String(event.input.command ?? "");
    const hit = DANGEROUS.find((rule) => rule.pattern.test(command));
    if (!hit) return undefined;
    const allowed = await ctx.ui.confirm("Dangerous command", `${command}\n\nThis ${hit.why}. Run it?`);
    if (allowed) return undefined;
    return {
      block: true,
      reason: `Blocked by the permission gate: the command ${hit.why}. Ask the user first.`,
    };
  });
}
