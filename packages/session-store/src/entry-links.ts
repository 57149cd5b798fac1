/**
 * Builds the entry tree of a transcript read from disk so that every walk over it ends.
 *
 * The writer only ever appends a child after its parent, so in an intact file every
 * `parentId` names an entry on an earlier line. Holding every kept entry to that rule
 * makes the tree acyclic by construction: a walk from any leaf towards the root visits
 * each entry at most once, whatever the file holds. Links that break it (a cycle, an
 * entry naming itself, a later or missing entry) are repaired, never followed.
 */
import type { SessionEntry } from "./entries.ts";
import { checkEntry } from "./entry-normalize.ts";

/** One raw line after migration, with where it came from. */
export interface RawEntryLine {
  value: Record<string, unknown>;
  /** One-based line number in the file. */
  line: number;
  /** UTF-8 size of the line including its newline. */
  bytes: number;
}

/** A kind of damage and where it first occurs. */
export interface DamageCount {
  count: number;
  /** One-based file line of the first occurrence. */
  firstLine: number | undefined;
}

/** What reading a damaged transcript skipped or repaired; all counts zero for an intact file. */
export interface SessionDamage {
  /** Lines that are not usable entries (unparsable, invalid, a duplicated ID): skipped. */
  skipped: DamageCount;
  /**
   * Kept entries whose parent link was broken (it named the entry itself, a later or a
   * missing entry, which is how cycles arise) or named a skipped entry: re-attached to
   * the skipped entry's own parent, else to the entry on the line before.
   */
  relinked: DamageCount;
  /** Kept entries some of whose fields had the wrong type and were replaced. */
  normalised: DamageCount;
}

/** The entry tree of a file: kept entries in file order, parents always earlier. */
export interface LinkedEntries {
  entries: SessionEntry[];
  lineBytes: number[];
  damage: SessionDamage;
}

/** An empty damage report. */
export function noDamage(): SessionDamage {
  return {
    skipped: { count: 0, firstLine: undefined },
    relinked: { count: 0, firstLine: undefined },
    normalised: { count: 0, firstLine: undefined },
  };
}

/** Counts one occurrence at `line`. */
export function countDamage(damage: DamageCount, line: number): void {
  damage.count++;
  if (damage.firstLine === undefined || line < damage.firstLine) damage.firstLine = line;
}

/** Checks, de-duplicates and links raw entries in one pass; linear in their number. */
export function linkEntries(
  lines: readonly RawEntryLine[],
  damage: SessionDamage = noDamage(),
): LinkedEntries {
  const entries: SessionEntry[] = [];
  const lineBytes: number[] = [];
  const kept = new Set<string>();
  /** Skipped entries that had an ID: where their children attach instead. */
  const stand = new Map<string, string | null>();
  let previous: string | null = null;

  // Where a link to `parentId` leads; `undefined` when it must not be followed.
  const resolve = (parentId: string | null, self: string): string | null | undefined => {
    if (parentId === null) return null;
    if (parentId === self) return undefined;
    if (kept.has(parentId)) return parentId;
    if (stand.has(parentId)) return stand.get(parentId)!;
    return undefined;
  };

  for (const raw of lines) {
    const check = checkEntry(raw.value);
    const id = raw.value.id;
    if (check.kind === "invalid" || kept.has(id as string)) {
      countDamage(damage.skipped, raw.line);
      if (typeof id === "string" && !kept.has(id) && !stand.has(id)) {
        const parentId = raw.value.parentId;
        const target = typeof parentId === "string" || parentId === null ? resolve(parentId, id) : undefined;
        stand.set(id, target === undefined ? previous : target);
      }
      continue;
    }
    const entry = check.entry;
    if (check.kind === "normalised") countDamage(damage.normalised, raw.line);
    const target = resolve(entry.parentId, entry.id);
    const parentId = target === undefined ? previous : target;
    if (parentId !== entry.parentId) {
      entry.parentId = parentId;
      countDamage(damage.relinked, raw.line);
    }
    kept.add(entry.id);
    entries.push(entry);
    lineBytes.push(raw.bytes);
    previous = entry.id;
  }
  return { entries, lineBytes, damage };
}

/** Whether anything was skipped or repaired. */
export function isDamaged(damage: SessionDamage): boolean {
  return damage.skipped.count + damage.relinked.count + damage.normalised.count > 0;
}
