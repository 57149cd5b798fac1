/** Resolution of the paths models write: relative to the working directory, `~` for home. */
import { isAbsolute, resolve } from "node:path";

/** Resolves `path` against `cwd`; a leading `@` (a habit of some models) is ignored. */
export function resolveToolPath(path: string, cwd: string, homeDir: string): string {
  let p = path.trim();
  if (p.startsWith("@")) p = p.slice(1);
  if (p === "~") return homeDir;
  if (p.startsWith("~/")) return resolve(homeDir, p.slice(2));
  return isAbsolute(p) ? resolve(p) : resolve(cwd, p);
}
