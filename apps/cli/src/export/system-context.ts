/** The system prompt and tool schemas an export shows with `--include-system` (`thread/context/read`). */
import type { AppServerClient } from "@knightcode/app-server-protocol";
import type { ExportedSession } from "./session-html.ts";

/** What a loaded thread's next turn would send besides its messages. */
export async function systemContext(
  client: AppServerClient,
  threadId: string,
): Promise<NonNullable<ExportedSession["system"]>> {
  return client.request("thread/context/read", { threadId });
}
