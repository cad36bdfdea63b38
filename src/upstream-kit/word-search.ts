import type { DatasetSpec, SearchMode, SearchSpec, SortContext } from './dataset-spec';
import { escapeLike, wordTextExpr } from './normalize-keyword';
import { relevanceOrder } from './relevance';

export interface WordSearchOptions extends Pick<
  SearchMode,
  'rankText' | 'spelled' | 'vectors' | 'leadingWords' | 'aliases' | 'iyVariants'
> {
  /**
   * A searched column that holds a code rather than words (finance-ministry catalogues): a q that
   * is the whole code ranks first; the name tiers follow. Do not list it first in `columns`.
   */
  codeColumn?: string;
}

/**
 * Keyword search for names, as people type them: every word of q starts a word of one of the
 * columns (diacritics and case folded, punctuation ignored: "ha" finds Hà Nội, not every "Thành
 * phố" or "Thừa phát lại"; "Huế." finds Huế). Best first: records whose first column holds every
 * word, then that column equal to the keywords, starting with them, holding them as a phrase from
 * the start of a word (q's last word standing whole first in both), shorter ones, then `order`.
 * Without q, `order`. `options` name stored columns (the folded text, the spelling key, the
 * words), so that none is computed per row at request time, the kinds a q may start with, and a
 * code column (see SearchMode, WordSearchOptions).
 */
export function wordPrefixSearch(
  columns: readonly string[],
  order: string,
  options: WordSearchOptions = {},
): Pick<DatasetSpec, 'search' | 'sort' | 'defaultOrder'> {
  const { codeColumn, ...mode } = options;
  const search: SearchSpec = {
    param: 'q',
    defaultMode: 'name',
    modes: { name: { columns, match: 'prefix', iyVariants: true, ...mode } },
  };
  const codeWords = codeColumn && wordTextExpr(codeColumn);
  const orderBy = (ctx: SortContext): string => {
    if (!ctx.matchesFirstColumn) return order;
    return [
      ...(codeWords && ctx.codeKeywords ? codeTiers(codeWords, codeColumn, ctx, ctx.codeKeywords) : []),
      // After a kind (Phường, P.), every name holds the rest of q; holding all of q says little
      // ("P.1": Thường Phước 1 holds "p" and "1", Phường 1 is named "1"), being or starting with it
      // does (Xa La, Xà Phiên).
      ...(ctx.lead
        ? [`(${ctx.lead.exact}) DESC`, `(${ctx.lead.startsWithAll}) DESC`]
        : [`(${ctx.matchesFirstColumn}) DESC`]),
      relevanceOrder(ctx, order),
    ].join(', ');
  };
  return {
    search,
    // Not a public parameter (the gateway's registry declares no sort for these datasets).
    sort: { param: 'sort', default: 'relevance', options: { relevance: { orderBy } } },
    defaultOrder: order,
  };
}

/** The whole code first, then the codes starting with q, in code order ("g1": G10, G11…). */
function codeTiers(codeWords: string, codeColumn: string, ctx: SortContext, keywords: string): string[] {
  const starts = `${codeWords} LIKE ${ctx.bind(escapeLike(keywords) + '%')}`;
  return [
    `(${codeWords} = ${ctx.bind(keywords)}) DESC`,
    `(${starts}) DESC`,
    `(CASE WHEN ${starts} THEN ${codeColumn} END)`,
  ];
}
