import type { DatasetSpec, SearchMode, SearchSpec, SortContext } from './dataset-spec';
import { relevanceOrder } from './relevance';

/**
 * Keyword search for names, as people type them: every word of q starts a word of one of the
 * columns (diacritics and case folded, punctuation ignored: "ha" finds Hà Nội, not every "Thành
 * phố" or "Thừa phát lại"; "Huế." finds Huế). Best first: records whose first column holds every
 * word, then that column equal to the keywords, starting with them, holding them as a phrase,
 * shorter ones, then `order`. Without q, `order`. `stored` names columns that hold the folded
 * text, the spelling key and the words, so that neither is computed per row at request time (see SearchMode).
 */
export function wordPrefixSearch(
  columns: readonly string[],
  order: string,
  stored: Pick<SearchMode, 'folded' | 'spelled' | 'vectors'> = {},
): Pick<DatasetSpec, 'search' | 'sort' | 'defaultOrder'> {
  const search: SearchSpec = {
    param: 'q',
    defaultMode: 'name',
    modes: { name: { columns, match: 'prefix', ...stored } },
  };
  const orderBy = (ctx: SortContext): string =>
    ctx.matchesFirstColumn ? `(${ctx.matchesFirstColumn}) DESC, ${relevanceOrder(ctx, order)}` : order;
  return {
    search,
    // Not a public parameter (the gateway's registry declares no sort for these datasets).
    sort: { param: 'sort', default: 'relevance', options: { relevance: { orderBy } } },
    defaultOrder: order,
  };
}
