import type { SortContext } from './dataset-spec';
import { escapeLike, spelledWordsExpr } from './normalize-keyword';
import { typedPattern } from './rank-terms';

/**
 * A cheap relevance order for keyword search: exact match, then names starting with the keywords,
 * then names containing them as a phrase, then shorter texts (the keywords cover more of them).
 * When q carries diacritics, each of the three tiers puts first the names spelled as typed, the
 * tone mark on either vowel of oa/oe/uy and a word typed without diacritics taking any: "phú"
 * finds the Phú wards before Phủ Lý, "phù my" Phù Mỹ before Phú Mỹ. `tieBreak` must end with a
 * unique column so pages are stable.
 */
export function relevanceOrder(ctx: SortContext, tieBreak: string): string {
  const e = ctx.searchedExpr;
  const kw = ctx.keywords;
  if (!e || !kw) return tieBreak;
  const typed =
    ctx.typed && ctx.spelledExpr
      ? { expr: spelledWordsExpr(ctx.spelledExpr), pattern: typedPattern(ctx.typed) }
      : undefined;
  // Within a tier, the names spelled as typed; f_spelling on both sides folds case (whatever the
  // database's ctype) and the tone placement ("hòa" and "hoà").
  const tier = (folded: string, like: (p: string) => string): string[] => [
    `(${folded}) DESC`,
    ...(typed
      ? [`(${folded} AND ${typed.expr} LIKE public.f_spelling(${ctx.bind(like(typed.pattern))})) DESC`]
      : []),
  ];
  const exact = ctx.bind(kw);
  const prefix = ctx.bind(escapeLike(kw) + '%');
  const phrase = ctx.bind('%' + escapeLike(kw) + '%');
  return [
    ...tier(`${e} = ${exact}`, (p) => p),
    ...tier(`${e} LIKE ${prefix}`, (p) => p + '%'),
    ...tier(`${e} LIKE ${phrase}`, (p) => '%' + p + '%'),
    `length(${e})`,
    tieBreak,
  ].join(', ');
}
