/** Unified diffs for `edit` and `write` results, and the `fileChanges` entries built from them. */
import type { FileChange, FileChangePreview } from "../types.ts";

// Diffing two huge, very different files is quadratic; past this the change is reported without a diff.
const DIFF_TIMEOUT_MS = 2000;

/** A unified diff of `before` -> `after`, or undefined when nothing differs (or diffing gave up). */
export async function unifiedDiff(
  path: string,
  before: string | undefined,
  after: string,
): Promise<string | undefined> {
  // loaded on the first diff, not with every start: from source it is 19 modules (docs/cold-start.md)
  const { createTwoFilesPatch, FILE_HEADERS_ONLY } = await import("diff");
  const patch = createTwoFilesPatch(
    before === undefined ? "/dev/null" : path,
    path,
    before ?? "",
    after,
    undefined,
    undefined,
    {
      context: 3,
      headerOptions: FILE_HEADERS_ONLY,
      timeout: DIFF_TIMEOUT_MS,
    },
  );
  if (patch === undefined || !patch.includes("\n@@")) return undefined;
  return patch;
}

/** A `fileChanges` entry; an empty diff is left out as the spec asks. */
export function fileChange(path: string, kind: FileChange["kind"], diff: string | undefined): FileChange {
  return diff ? { path, kind, diff } : { path, kind };
}

/** 1-based number of the first line that differs, for UIs that jump to the change. */
export function firstChangedLine(before: string, after: string): number {
  const limit = Math.min(before.length, after.length);
  let i = 0;
  while (i < limit && before.charCodeAt(i) === after.charCodeAt(i)) i++;
  let line = 1;
  for (let j = 0; j < i; j++) if (before.charCodeAt(j) === 10) line++;
  return line;
}

/**
 * A tool's preview from its plan: what the plan says would change, or the error the call
 * would fail with (reported, not thrown, so the approval can still be shown).
 */
export async function previewChange(
  path: string,
  plan: () => Promise<{ kind: FileChangePreview["kind"]; diff: string | undefined }>,
  kindOnError: FileChangePreview["kind"],
): Promise<FileChangePreview> {
  try {
    const { kind, diff } = await plan();
    return diff ? { path, kind, diff } : { path, kind };
  } catch (error) {
    return { path, kind: kindOnError, error: error instanceof Error ? error.message : String(error) };
  }
}
