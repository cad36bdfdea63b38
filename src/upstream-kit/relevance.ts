import type { SortContext } from './dataset-spec';
import { escapeLike } from './normalize-keyword';

/**
 * A cheap relevance order for keyword search: exact match, then names starting with the keywords,
 * then names containing them as a phrase, then shorter texts (the keywords cover more of them).
 * When q carries diacritics, each of the three tiers puts first the names spelled as typed, the
 * tone mark on either vowel of oa/oe/uy: "phú" finds the Phú wards before Phủ Lý. `tieBreak` must end with a unique column so pages
 * are stable.
 */
export function relevanceOrder(ctx: SortContext, tieBreak: string): string {
  const e = ctx.searchedExpr;
  const kw = ctx.keywords;
  if (!e || !kw) return tieBreak;
  // f_spelling on both sides: the typed words and the name fold alike (case, whatever the
  // database's ctype; "hòa" and "hoà").
  const spellings: [string, string, (p: string) => string][] = [[e, kw, (p) => p]];
  if (ctx.typed && ctx.spelledExpr)
    spellings.push([ctx.spelledExpr, ctx.typed, (p) => `public.f_spelling(${p})`]);
  const tier = (op: string, pattern: (k: string) => string): string[] =>
    spellings.map(([x, k, wrap]) => `(${x} ${op} ${wrap(ctx.bind(pattern(k)))}) DESC`);
  return [
    ...tier('=', (k) => k),
    ...tier('LIKE', (k) => escapeLike(k) + '%'),
    ...tier('LIKE', (k) => '%' + escapeLike(k) + '%'),
    `length(${e})`,
    tieBreak,
  ].join(', ');
}
