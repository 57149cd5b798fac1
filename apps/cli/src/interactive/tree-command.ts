/** `/tree`: not available yet. */
import type { InteractiveApp } from "./interactive-app.ts";
import { style } from "./ui/style.ts";

/** Explains that navigating the session tree needs protocol support not built yet. */
export async function openTree(app: InteractiveApp, _args: string): Promise<void> {
  app.view.note(style.warning("/tree is not available yet: the protocol has no session-tree methods."));
}
