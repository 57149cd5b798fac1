/**
 * Fuzzy path matching for `file/search`: the query's characters must appear in order
 * (case-insensitively); the score rewards matches at word and path-segment starts,
 * consecutive runs and matches in the file name, and penalizes gaps. Linear in the
 * path length per candidate, so scoring 200,000 paths stays cheap.
 */

/** A scored match with the matched character indices (UTF-16 indices into the path). */
export interface FuzzyMatch {
  path: string;
  score: number;
  indices: number[];
}

const SCORE_MATCH = 16;
const BONUS_SEGMENT_START = 12;
const BONUS_WORD_START = 8;
const BONUS_CAMEL = 6;
const BONUS_CONSECUTIVE = 6;
const BONUS_BASENAME = 4;
const PENALTY_GAP_START = 3;
const PENALTY_GAP_EXTEND = 1;

function isSeparator(ch: string): boolean {
  return ch === "-" || ch === "_" || ch === "." || ch === " ";
}

function positionBonus(path: string, i: number): number {
  if (i === 0) return BONUS_SEGMENT_START;
  const prev = path[i - 1]!;
  if (prev === "/" || prev === "\\") return BONUS_SEGMENT_START;
  if (isSeparator(prev)) return BONUS_WORD_START;
  const cur = path[i]!;
  if (prev >= "a" && prev <= "z" && cur >= "A" && cur <= "Z") return BONUS_CAMEL;
  return 0;
}

/** Lowercases and drops whitespace; the result is what {@link fuzzyMatch} expects. */
export function normalizeQuery(query: string): string {
  return query.replace(/\s+/g, "").toLowerCase();
}

/** Greedy scoring of the query inside `[start, end]`, where a match is known to exist. */
function scoreWindow(path: string, hay: string, query: string, start: number, end: number): FuzzyMatch {
  const baseStart = path.lastIndexOf("/") + 1;
  const indices: number[] = [];
  let score = 0;
  let prevMatch = -2;
  let inGap = false;
  let qi = 0;
  for (let i = start; i <= end && qi < query.length; i++) {
    if (hay[i] === query[qi]) {
      let s = SCORE_MATCH + positionBonus(path, i);
      if (prevMatch === i - 1) s += BONUS_CONSECUTIVE;
      if (i >= baseStart) s += BONUS_BASENAME;
      score += s;
      indices.push(i);
      prevMatch = i;
      inGap = false;
      qi++;
    } else if (qi > 0) {
      score -= inGap ? PENALTY_GAP_EXTEND : PENALTY_GAP_START;
      inGap = true;
    }
  }
  return { path, score, indices };
}

/** Start of the tightest match ending at or before `end`, scanning backward. */
function backwardStart(hay: string, query: string, end: number): number {
  let qi = query.length - 1;
  for (let i = end; i >= 0; i--) {
    if (hay[i] === query[qi] && --qi < 0) return i;
  }
  return -1;
}

/**
 * Scores one path against a normalized query, or returns undefined when it does not
 * match. Two fzf-style windows are tried, the leftmost complete match and the
 * rightmost one (which favours the file name), each tightened by a backward scan;
 * the better-scoring window wins.
 */
export function fuzzyMatch(path: string, query: string): FuzzyMatch | undefined {
  if (query.length === 0) return { path, score: 0, indices: [] };
  const lower = path.toLowerCase();
  // lowercasing can change length for a few scripts; fall back to the raw path then
  const hay = lower.length === path.length ? lower : path;
  let qi = 0;
  let firstEnd = -1;
  for (let i = 0; i < hay.length; i++) {
    if (hay[i] === query[qi] && ++qi === query.length) {
      firstEnd = i;
      break;
    }
  }
  if (firstEnd < 0) return undefined;
  const left = scoreWindow(path, hay, query, backwardStart(hay, query, firstEnd), firstEnd);
  const lastEnd = hay.lastIndexOf(query[query.length - 1]!);
  if (lastEnd === firstEnd) return left;
  const rightStart = backwardStart(hay, query, lastEnd);
  const right = scoreWindow(path, hay, query, rightStart, lastEnd);
  return right.score > left.score ? right : left;
}

/** Ranks paths: best score first, then shorter path, then lexicographic for stability. */
export function rankPaths(paths: readonly string[], query: string, limit: number): FuzzyMatch[] {
  const q = normalizeQuery(query);
  const top: FuzzyMatch[] = [];
  const better = (a: FuzzyMatch, b: FuzzyMatch): number =>
    b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  for (const path of paths) {
    const m = fuzzyMatch(path, q);
    if (m === undefined) continue;
    if (top.length < limit) {
      top.push(m);
      if (top.length === limit) top.sort(better);
      continue;
    }
    // top is sorted once full; insert only when this beats the worst kept entry
    if (better(m, top[top.length - 1]!) >= 0) continue;
    let lo = 0;
    let hi = top.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (better(m, top[mid]!) < 0) hi = mid;
      else lo = mid + 1;
    }
    top.splice(lo, 0, m);
    top.pop();
  }
  if (top.length < limit) top.sort(better);
  return top;
}
