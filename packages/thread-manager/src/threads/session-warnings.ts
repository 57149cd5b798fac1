/**
 * What a damaged transcript cost, as warnings: `thread/read` and `thread/resume` show
 * the history that survived, and these say how much was skipped or repaired and where
 * to look (the first line of each kind), so nothing is lost silently.
 */
import type { DamageCount, SessionFile } from "@knightcode/session-store";
import type { Warning } from "../shapes.ts";

/** One `server` warning per kind of damage found when the session was read; none for an intact file. */
export function sessionDamageWarnings(session: SessionFile): Warning[] {
  const { skipped, relinked, normalised } = session.damage;
  const warnings: Warning[] = [];
  const add = (damage: DamageCount, what: (count: number) => string) => {
    if (damage.count === 0) return;
    const warning: Warning = { source: "server", message: what(damage.count), path: session.path };
    if (damage.firstLine !== undefined) warning.line = damage.firstLine;
    warnings.push(warning);
  };
  add(skipped, (n) => `${plural(n, "unreadable line")} of the transcript skipped`);
  add(relinked, (n) => `${plural(n, "entry", "entries")} with a broken parent link re-attached`);
  add(normalised, (n) => `${plural(n, "entry", "entries")} with malformed fields repaired`);
  return warnings;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
