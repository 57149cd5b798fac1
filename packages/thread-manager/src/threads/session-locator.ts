/**
 * Finds a thread's transcript by ID. File names end in `_<id>.jsonl`, so a lookup
 * lists directories and never opens a transcript. Found paths are remembered; a
 * remembered path that vanished (archive, delete, another process) is looked up again.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ARCHIVE_DIR_NAME, isArchivedPath } from "@knightcode/session-store";

/** Where a transcript is and whether it is archived. */
export interface LocatedSession {
  path: string;
  archived: boolean;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Looks transcripts up by thread ID across the session directories in use. */
export class SessionLocator {
  private readonly known = new Map<string, string>();

  /**
   * @param roots Directories holding transcripts directly (an override dir) and/or
   *   project subdirectories (the per-project root); both are searched.
   */
  constructor(private readonly roots: () => string[]) {}

  /** Records where a transcript lives (after create, fork, archive). */
  remember(id: string, path: string): void {
    this.known.set(id, path);
  }

  forget(id: string): void {
    this.known.delete(id);
  }

  /** The transcript of `id`, or undefined when none exists. */
  find(id: string): LocatedSession | undefined {
    const cached = this.known.get(id);
    if (cached && existsSync(cached)) return { path: cached, archived: isArchivedPath(cached) };
    const suffix = `_${id}.jsonl`;
    for (const dir of this.candidateDirs()) {
      const name = listDir(dir).find((n) => n.endsWith(suffix));
      if (name) {
        const path = join(dir, name);
        this.known.set(id, path);
        return { path, archived: isArchivedPath(path) };
      }
    }
    return undefined;
  }

  /** Every directory a transcript may sit in: each root, its project folders, and their archives. */
  private candidateDirs(): string[] {
    const dirs: string[] = [];
    for (const root of this.roots()) {
      dirs.push(root, join(root, ARCHIVE_DIR_NAME));
      for (const name of listDir(root)) {
        if (name.startsWith("--")) dirs.push(join(root, name), join(root, name, ARCHIVE_DIR_NAME));
      }
    }
    return dirs;
  }
}
