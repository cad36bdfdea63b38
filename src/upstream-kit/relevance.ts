import type { SortContext } from './dataset-spec';
import { escapeLike, spelledWordsExpr } from './normalize-keyword';
import { typedPattern } from './rank-terms';

/** How a tier reads the name: as it is, or with a space before it (and after it), for word bounds. */
type Bounds = (expr: string) => string;
const asIs: Bounds = (x) => x;
const spaceBefore: Bounds = (x) => `(' ' || ${x})`;
const spaced: Bounds = (x) => `(' ' || ${x} || ' ')`;

/**
 * A cheap relevance order for keyword search, over the name's words and q's (single spaces between
 * words): the name itself, then names starting with q, then names holding q as a phrase from the
 * start of a word, then shorter texts (the keywords cover more of them). In the last two, q's last
 * word standing whole in the name comes first: for "an", Vũ Thu An before Lê Anh Hải, An Phú
 * before Anh Sơn. When q carries diacritics, each tier puts first the names spelled as typed, the
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
  const tier = (bounds: Bounds, like: (p: string) => string): string[] => {
    const folded = `${bounds(e)} LIKE ${ctx.bind(like(escapeLike(kw)))}`;
    return [
      `(${folded}) DESC`,
      ...(typed
        ? [
            `(${folded} AND ${bounds(typed.expr)} LIKE public.f_spelling(${ctx.bind(like(typed.pattern))})) DESC`,
          ]
        : []),
    ];
  };
  return [
    ...tier(asIs, (p) => p),
    ...tier(asIs, (p) => p + ' %'),
    ...tier(asIs, (p) => p + '%'),
    ...tier(spaced, (p) => '% ' + p + ' %'),
    ...tier(spaceBefore, (p) => '% ' + p + '%'),
    `length(${e})`,
    tieBreak,
  ].join(', ');
}
