import type { DatasetSpec, SearchSpec, SortContext } from './dataset-spec';
import { relevanceOrder } from './relevance';

/**
 * Keyword search for names, as people type them: every word of q starts a word of one of the
 * columns (diacritics and case folded, punctuation ignored: "ha" finds Hà Nội, not every "Thành
 * phố" or "Thừa phát lại"; "Huế." finds Huế). Best first: records whose first column holds every
 * word, then that column equal to the keywords, starting with them, holding them as a phrase,
 * shorter ones, then `order`. Without q, `order`.
 */
export function wordPrefixSearch(
  columns: readonly string[],
  order: string,
): Pick<DatasetSpec, 'search' | 'sort' | 'defaultOrder'> {
  const search: SearchSpec = {
    param: 'q',
    defaultMode: 'name',
    modes: { name: { columns, match: 'prefix' } },
  };
  const orderBy = (ctx: SortContext): string => {
    if (!ctx.keywords || !ctx.searchedExpr) return order;
    // Prefix-mode keywords are [a-z0-9] terms joined by spaces: nothing in them is tsquery syntax.
    const terms = ctx.bind(
      ctx.keywords
        .split(' ')
        .map((t) => `${t}:*`)
        .join(' & '),
    );
    const inFirst = `to_tsvector('simple'::regconfig, ${ctx.searchedExpr}) @@ to_tsquery('simple'::regconfig, ${terms})`;
    return `(${inFirst}) DESC, ${relevanceOrder(ctx, order)}`;
  };
  return {
    search,
    // Not a public parameter (the gateway's registry declares no sort for these datasets).
    sort: { param: 'sort', default: 'relevance', options: { relevance: { orderBy } } },
    defaultOrder: order,
  };
}
