import type { Queryable } from '../db/db';

/** How a query parameter is typed; the upstream re-validates what the gateway already checked. */
export type ParamType =
  | { type: 'string'; maxLength?: number }
  | { type: 'integer'; min?: number; max?: number }
  | { type: 'boolean' }
  | { type: 'date' }
  | { type: 'enum'; values: readonly string[] }
  /** "lat,lng" in decimal degrees; parsed to the normalised string "lat,lng" (see pointOf). */
  | { type: 'point' };

export type ParamValue = string | number | boolean;

/**
 * A list parameter. `where` turns the bound placeholder (e.g. `$3`) into a SQL condition; a
 * parameter without `where` is only accepted and parsed (a mode switch such as search_in or sort).
 */
export interface FilterSpec {
  param: ParamType;
  default?: string;
  where?: (placeholder: string) => string;
  /**
   * Async step between parsing and SQL, for filters answered outside the database (an in-memory
   * spatial index): its result is what `where` binds. Runs only when the parameter is present.
   */
  resolve?: (value: ParamValue) => Promise<ParamValue>;
}

/**
 * Keyword search over folded text (no diacritics, lower case):
 * - `words`: every word occurs (AND) as a substring of one of the columns (trigram index);
 * - `substring`: the whole text occurs as a substring (document numbers: "15/2024", "nd-cp");
 * - `prefix`: every word starts a word of the column (full-text 'simple' index with prefix
 *   matching); scales to millions of rows. All words must be in the same column.
 */
export interface SearchMode {
  columns: readonly string[];
  match: 'words' | 'substring' | 'prefix';
  /**
   * For `prefix`: stored tsvector columns, one per column, holding the words of wordVectorExpr(col)
   * (the folded text split at every character other than a letter or a digit); without them that
   * expression is used.
   */
  vectors?: readonly string[];
  /**
   * For `words` and `substring`: stored text columns, one per column, holding foldedExpr(col);
   * without them that expression is used.
   */
  folded?: readonly string[];
  /**
   * For `prefix`: a stored text column holding rankTextExpr(columns[0]) (the first column's folded
   * words, apostrophes joined); without it that expression is used. The relevance order compares
   * it on every matching row, so a short q over a large table folds no row at request time.
   */
  rankText?: string;
  /**
   * For `prefix`: stored text columns, one per column, holding public.f_spelling(col) (lower case,
   * tone marks placed one way); without them that expression is used. Read only for a q typed with
   * diacritics, on the first column.
   */
  spelled?: readonly string[];
  /**
   * For `prefix`: a record's kind as a q may start with it, diacritics as written, to the folded
   * words the searched columns use for it ("p" → "phuong", "tp" → "thanh pho", "xã" → "xa"). A q
   * starting with one matches as typed or with those words, and is ranked by its other words (see
   * SortContext.lead). A word typed with other diacritics ("xà") is not the kind.
   */
  leadingWords?: Readonly<Record<string, string>>;
  /**
   * For `prefix`: folded words people type for longer ones ("thpt" → "trung hoc pho thong", "hcm"
   * → "ho chi minh"): such a word matches as itself or as those words, and ranks as those words.
   * Neither this nor leadingWords with bitmapCount, which counts the terms as typed.
   */
  aliases?: Readonly<Record<string, string>>;
  /**
   * For `prefix`: a word that is a syllable spelled with a final i or y alike (kì/kỳ, lí/lý, mĩ/mỹ,
   * quí/quý, sĩ/sỹ, tí/tý; see iyVariant) also matches the other spelling as a whole word, and
   * ranks as either. Not with bitmapCount, which counts the terms as typed.
   */
  iyVariants?: boolean;
  /** For `prefix`: answer the exact total from per-term bitmaps instead of counting rows. */
  bitmapCount?: BitmapCountSpec;
}

/**
 * Exact totals of `prefix` searches from per-term bitmaps: counting matches row by row reads one
 * heap page per match (GIN cannot count index-only), a bitmap AND reads a few hundred small rows
 * per term however common it is. The table holds, for every word prefix of every record, the
 * records' bits in fixed-size blocks; the dataset keeps it in sync (legal: triggers, see
 * migrations/legal/002_legal_search_blocks.sql).
 */
export interface BitmapCountSpec {
  /** Table with columns term text, part text, block int, bits bit(n); primary key (term, part, block). */
  table: string;
  /**
   * The filter whose value is the `part` (legal: database). Bitmaps hold words only, so a request
   * with any other filter, or without this one, falls back to counting rows.
   */
  partFilter: string;
  /** More distinct terms than this also count rows (the count joins once per term). Default 8. */
  maxTerms?: number;
}

export interface SearchSpec {
  /** Parameter carrying the keywords, usually q. */
  param: string;
  /** Optional parameter choosing a mode (legal: search_in=name|code). */
  modeParam?: string;
  modes: Record<string, SearchMode>;
  defaultMode: string;
  maxLength?: number;
}

/** What an ORDER BY builder may use: a binder for extra values and the normalised keywords. */
export interface SortContext {
  bind(value: ParamValue): string;
  /** Keywords after diacritics/case folding, joined by single spaces; undefined without a search. */
  keywords?: string;
  /**
   * The keywords a code compares with: `keywords` without reading every y as i, which `keywords`
   * does when q holds a syllable written either way (SearchMode.iyVariants); a code is not a word.
   */
  codeKeywords?: string;
  /**
   * SQL expression of the first searched column, folded the way keywords are (for `prefix`, its
   * words: rankTextExpr).
   */
  searchedExpr?: string;
  /** For a `prefix` search whose q carries diacritics: its words as typed (NFC, lower case). */
  typed?: string;
  /** SQL of the first searched column's public.f_spelling, diacritics kept; set with `typed`. */
  spelledExpr?: string;
  /** For a `prefix` search: the SQL condition that the first searched column alone holds every word. */
  matchesFirstColumn?: string;
  /**
   * For a `prefix` search whose q starts with one of the mode's leadingWords (the first column then
   * holds every other word): `exact`, the condition that the first column is all of q, folded (a
   * name may start with such a word: Xa La), and `startsWithAll`, that it starts with all of q
   * (typing "xa ph" for Xà Phiên). `keywords` and `typed` leave the kind out.
   */
  lead?: { exact: string; startsWithAll: string };
}

export interface SortOption {
  orderBy: string | ((ctx: SortContext) => string);
  /** The option only makes sense with keywords (relevance); without them `fallback` is used. */
  needsSearch?: boolean;
  fallback?: string;
  /**
   * For an order an index can serve: with at least this many matches, walk that index and stop
   * after one page (dense matches are met early); with fewer, collect the matches and sort them,
   * which the planner cannot always tell apart when words correlate. The kit counts first, then
   * picks. Absent: the planner decides alone.
   */
  walkIndexFrom?: number;
  /**
   * The order to use instead when the search ran in one of these modes (legal: a search by
   * document number ranks by the number, not by the name's length).
   */
  byMode?: Record<string, SortOption>;
}

export interface SortSpec {
  param: string;
  default: string;
  options: Record<string, SortOption>;
}

/**
 * Sub-resource handler: returns the object for `data` (like a detail's record; a history or a list
 * of versions goes inside it, e.g. `{ items: [...] }`), or null for 404.
 */
export type SubresourceHandler = (
  db: Queryable,
  id: string,
) => Promise<Record<string, unknown> | null | undefined>;

/**
 * One dataset served by an upstream. SQL fragments here are trusted code written by the dataset
 * team; request values only ever reach SQL as bound parameters.
 */
export interface DatasetSpec {
  /** Path without leading slash; one or two segments (legal-documents, catalogs/agencies). */
  path: string;
  /** Ids carry this prefix; a detail id without it is a 404 without touching the database. */
  idPrefix?: string;
  /** FROM clause, joins included. */
  from: string;
  /** SQL expression of the record id (for detail lookups). */
  idColumn: string;
  /** Fixed condition for datasets sharing a table (e.g. `o.dataset = 'bailiff-offices'`). */
  scope?: string;
  /** Output field → SQL expression, returned by list and detail. */
  listFields: Record<string, string>;
  /** Output field → SQL expression, returned by detail only. */
  detailFields?: Record<string, string>;
  filters?: Record<string, FilterSpec>;
  search?: SearchSpec;
  sort?: SortSpec;
  /** ORDER BY used when there is no sort spec; should end with a unique column for stable pages. */
  defaultOrder?: string;
  /** At least one of these parameters must be present, else 422. */
  requireOneOf?: readonly string[];
  /**
   * Pages in two steps: the page's ids by WHERE and ORDER BY alone, then the listed fields of those
   * rows. When an index covers the filter and the order, the first step is an index-only walk and
   * the heap is read for the page's rows only (legal: the relevance walk).
   */
  keysFirst?: boolean;
  /** Whether GET /{path}/{id} exists (catalogs: no). Default true. */
  detail?: boolean;
  subresources?: Record<string, SubresourceHandler>;
}
