/**
 * Files in the writable roots whose other hard links lead outside them. A bind mount
 * cannot stop a write through such a link (it is the same inode), so the sandbox mounts
 * them read-only. Inside the sandbox no new link to an outside file can be made: link(2)
 * across mounts fails with EXDEV.
 */
import { collapsePaths } from "./mount-plan.ts";

/** Most read-only mounts one sandbox gets for hard links; more are folded into their folders. */
export const MAX_HARD_LINK_MOUNTS = 256;

/** `find`'s report (`dev inode links path\0`) to the files with links outside the scanned roots. */
export function linksLeadingOutside(report: string): string[] {
  const byInode = new Map<string, { links: number; paths: string[] }>();
  for (const record of report.split("\0")) {
    // "dev inode links path": the path is everything after the third space
    const a = record.indexOf(" ");
    const b = record.indexOf(" ", a + 1);
    const c = record.indexOf(" ", b + 1);
    if (a <= 0 || b < 0 || c < 0 || c === record.length - 1) continue;
    const key = record.slice(0, b);
    let entry = byInode.get(key);
    if (!entry) {
      entry = { links: Number(record.slice(b + 1, c)), paths: [] };
      byInode.set(key, entry);
    }
    entry.paths.push(record.slice(c + 1));
  }
  return [...byInode.values()].filter((e) => e.paths.length < e.links).flatMap((e) => e.paths);
}

/** Scans the roots with `find` and returns what to mount read-only (at most {@link MAX_HARD_LINK_MOUNTS}, folded). */
export async function hardLinkedOutside(roots: readonly string[]): Promise<string[]> {
  if (roots.length === 0) return [];
  const child = Bun.spawn(
    ["find", ...roots, "-xdev", "-type", "f", "-links", "+1", "-printf", "%D %i %n %p\\0"],
    { stdout: "pipe", stderr: "ignore", stdin: "ignore" },
  );
  const report = await new Response(child.stdout).text();
  await child.exited;
  return collapsePaths(linksLeadingOutside(report), roots, MAX_HARD_LINK_MOUNTS);
}
