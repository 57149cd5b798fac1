import { readFileSync } from "node:fs";

/** True when `pid` has exited (gone, or a zombie waiting to be reaped). Linux /proc based. */
export function isDead(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return true;
  }
  // The state letter follows the parenthesized command name.
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" || state === "X";
}

/**
 * Resolves once `pid` has exited, rejecting if it is still alive after `ms`. The kernel
 * closes a dying process's pipes a moment before it turns zombie, so a caller that saw the
 * pipe close may have to wait that moment out; no fixed delay is assumed.
 */
export async function waitUntilDead(pid: number, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!isDead(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still alive after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
