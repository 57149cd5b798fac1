/** Path relations the mount planning is made of. */
import { join, relative, sep } from "node:path";

/** Whether `child` is `parent` or inside it. */
export function isWithin(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
}

/** Where a host path appears inside the sandbox: below the workspace when it is in the cwd. */
export function insidePath(path: string, cwd: string, workspace: string | undefined): string {
  if (workspace === undefined || !isWithin(path, cwd)) return path;
  const rel = relative(cwd, path);
  return rel === "" ? workspace : join(workspace, rel);
}
