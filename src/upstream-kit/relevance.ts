import type { SortContext } from './dataset-spec';
import { escapeLike } from './normalize-keyword';

/**
 * A cheap relevance order for keyword search: exact match, then names starting with the keywords,
 * then names containing them as a phrase, then shorter texts (the keywords cover more of them).
 * `tieBreak` must end with a unique column so pages are stable.
 */
export function relevanceOrder(ctx: SortContext, tieBreak: string): string {
  const e = ctx.searchedExpr;
  const kw = ctx.keywords;
  if (!e || !kw) return tieBreak;
  const exact = ctx.bind(kw);
  const prefix = ctx.bind(escapeLike(kw) + '%');
  const phrase = ctx.bind('%' + escapeLike(kw) + '%');
  return `(${e} = ${exact}) DESC, (${e} LIKE ${prefix}) DESC, (${e} LIKE ${phrase}) DESC, length(${e}), ${tieBreak}`;
}
