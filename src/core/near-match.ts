import { present } from './errors.js';

/** A name as people mistype it: lower case, without `_`, `-` or spaces (`start_time`, `StartTime` → `starttime`). */
export const squashName = (name: string): string => name.toLowerCase().replace(/[-_\s]/g, '');

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `locaton` → `location`
 * is 1, `strat` → `start` is 1.
 */
export function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  // Cell i * width + j: the distance between the first i characters of a and the first j of b.
  const cells = Array.from({ length: (a.length + 1) * width }, (_, k) =>
    k < width ? k : k % width === 0 ? k / width : 0,
  );
  const at = (i: number, j: number): number => present(cells[i * width + j], 'an edit-distance cell');
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      cells[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The candidate `word` most likely stands for, or undefined: the same name in another case or
 * spelling (`per_page` → `perPage`), a synonym from `aliases` (squashed word → candidate:
 * `pagesize` → `perPage`), else the closest candidate within a typo or two (`locaton` →
 * `location`; short words need a closer match).
 */
export function nearMatch(
  word: string,
  candidates: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): string | undefined {
  const squashed = squashName(word);
  const same = candidates.find((c) => squashName(c) === squashed);
  if (same !== undefined) return same;
  const alias = Object.hasOwn(aliases, squashed) ? aliases[squashed] : undefined;
  if (alias !== undefined && candidates.includes(alias)) return alias;
  const allowed = Math.min(2, Math.floor(squashed.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(squashed, squashName(candidate));
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
