/**
 * `knightcode export <session> [-o file.html] [--include-system]`: the session's current
 * branch as one self-contained HTML file. The session is opened with `thread/resume` (for
 * its token usage and, with `--include-system`, what the model is sent); one another
 * process holds is read with `thread/read` instead and exported without those.
 */
import { isAppServerError } from "@knightcode/app-server-protocol";
import { sessionIdOf } from "./open-thread.ts";
import { connectTerminalClient } from "./terminal-client.ts";

/** The parsed command. */
export interface ExportOptions {
  session: string;
  output?: string;
  includeSystem: boolean;
}

/** Runs the export; resolves with the exit code. */
export async function runExport(options: ExportOptions): Promise<number> {
  const cwd = process.cwd();
  const connection = await connectTerminalClient({
    cwd,
    extensions: [],
    noSession: false,
    clientName: "knightcode-export",
  });
  const { client } = connection;
  const threadId = sessionIdOf(options.session);
  try {
    const { writeSessionExport } = await import("./export/write-export.ts");
    const { systemContext } = await import("./export/system-context.ts");
    let usage: Awaited<ReturnType<typeof client.request<"thread/resume">>>["usage"] | undefined;
    let loaded = false;
    try {
      usage = (await client.request("thread/resume", { threadId })).usage;
      loaded = true;
    } catch (error) {
      if (isAppServerError(error, "threadNotFound")) {
        process.stderr.write(`knightcode: no session '${options.session}'\n`);
        return 1;
      }
      if (!isAppServerError(error, "threadLockedElsewhere")) throw error;
      process.stderr.write(
        "knightcode: the session is open in another process; exporting it without token usage\n",
      );
    }
    const system = options.includeSystem && loaded ? await systemContext(client, threadId) : undefined;
    const path = await writeSessionExport(client, {
      threadId,
      cwd,
      ...(options.output === undefined ? {} : { output: options.output }),
      ...(usage === undefined ? {} : { usage }),
      ...(system === undefined ? {} : { system }),
    });
    process.stdout.write(`Exported the session to ${path}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(
      `knightcode: export failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  } finally {
    await connection.close();
  }
}
