/**
 * `/export [file.html] [--include-system]`: the open session as one self-contained HTML
 * file in the project directory (or where named), with the usage the footer shows.
 */
import { systemContext } from "../export/system-context.ts";
import { writeSessionExport } from "../export/write-export.ts";
import type { InteractiveApp } from "./interactive-app.ts";
import { style } from "./ui/style.ts";

/** Runs `/export` with the rest of the line. */
export async function exportSession(app: InteractiveApp, args: string): Promise<void> {
  const threadId = app.session.threadId;
  if (threadId === undefined) return;
  const words = args.split(/\s+/).filter((w) => w !== "");
  const includeSystem = words.includes("--include-system");
  const names = words.filter((w) => w !== "--include-system");
  if (names.length > 1 || names.some((w) => w.startsWith("-"))) {
    app.view.note(style.error("✗ /export takes one file name and --include-system"));
    return;
  }
  const usage = app.footer.usage;
  const path = await writeSessionExport(app.client, {
    threadId,
    cwd: app.cwd,
    ...(names[0] === undefined ? {} : { output: names[0] }),
    ...(usage === undefined ? {} : { usage }),
    ...(includeSystem ? { system: await systemContext(app.client, threadId) } : {}),
  });
  app.view.note(style.success(`✓ Exported the session to ${path}`));
}
