import { utimesSync } from "node:fs";
import { SessionFile } from "../../src/index.ts";

/** Writes a closed transcript with one user message; `mtimeSec` pins its modification time. */
export async function writeTranscript(
  dir: string,
  options: { cwd?: string; text?: string; name?: string; mtimeSec?: number; parentSession?: string } = {},
): Promise<SessionFile> {
  const file = await SessionFile.create({
    dir,
    cwd: options.cwd ?? "/p",
    ...(options.parentSession ? { parentSession: options.parentSession } : {}),
  });
  file.append({ type: "message", message: { role: "user", content: options.text ?? "hello", timestamp: 1 } });
  if (options.name) file.append({ type: "session_info", name: options.name });
  file.close();
  if (options.mtimeSec !== undefined) utimesSync(file.path, options.mtimeSec, options.mtimeSec);
  return file;
}
