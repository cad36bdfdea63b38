import type { DatasetSpec } from '../../upstream-kit';
import { escapeLike, eq, gte, lte, wordPrefixSearch } from '../../upstream-kit';
import { ORGANISATION_ALIASES } from '../search-aliases';
import type { SortContext } from '../../upstream-kit';
import { LEGAL_DATABASE_IDS } from '../../data/legal-catalogs';
import { legalRelations, newestFirst, relatedDocuments } from './legal-relations';

const day = (col: string): string => `to_char(${col}, 'YYYY-MM-DD')`;
const ref = (table: string, col: string): string =>
  `(SELECT json_build_object('id', c.id, 'name', c.name) FROM ${table} c WHERE c.id = ${col})`;
const id = { type: 'integer', min: 1 } as const;

/** Newest first; ties by id, so pages are stable. Also the tie-break of every relevance order. */
const NEWEST = newestFirst('d');

const codeRelevance = (ctx: SortContext): string => {
  if (!ctx.searchedExpr || !ctx.keywords) return NEWEST;
  const prefix = ctx.bind(escapeLike(ctx.keywords) + '%');
  return `(${ctx.searchedExpr} LIKE ${prefix}) DESC, length(d.code), ${NEWEST}`;
};

/** GET /legal-documents: the list parameters of the API reference, one for one. */
export const legalDocuments: DatasetSpec = {
  path: 'legal-documents',
  idPrefix: 'vb_',
  // Catalog objects are sub-selects so they are built for the page's rows only, not for the count.
  from: 'legal_documents d',
  idColumn: 'd.id',
  listFields: {
    id: 'd.id',
    code: 'd.code',
    name: 'd.name',
    database: 'd.database',
    type: ref('legal_document_types', 'd.type_id'),
    field: ref('legal_fields', 'd.field_id'),
    agency: ref('legal_agencies', 'd.agency_id'),
    status: ref('legal_statuses', 'd.status_id'),
    issued_date: day('d.issued_date'),
    effective_date: day('d.effective_date'),
    expired_date: day('d.expired_date'),
    source_url: 'd.source_url',
  },
  detailFields: {
    signer: 'd.signer',
    content_html: 'd.content_html',
    content_en_html: 'd.content_en_html',
    replaced_by: relatedDocuments('to_id', 'from_id', 'replaces', 'd.id'),
    replaces: relatedDocuments('from_id', 'to_id', 'replaces', 'd.id'),
  },
  filters: {
    // A plain equality: it leads the (database, length(name), …) index the relevance walk needs;
    // keyword totals come from the bitmaps, which are kept per database.
    database: eq('d.database', { type: 'enum', values: LEGAL_DATABASE_IDS }, 'vbqppl'),
    type_id: eq('d.type_id', id),
    field_id: eq('d.field_id', id),
    agency_id: eq('d.agency_id', id),
    status_id: eq('d.status_id', id),
    issued_from: gte('d.issued_date', { type: 'date' }),
    issued_to: lte('d.issued_date', { type: 'date' }),
  },
  search: {
    param: 'q',
    modeParam: 'search_in',
    defaultMode: 'name',
    modes: {
      name: {
        columns: ['d.name'],
        match: 'prefix',
        vectors: ['d.name_tsv'],
        // Totals from word-prefix bitmaps per database (migrations/legal/002): exact, index-sized.
        bitmapCount: { table: 'legal_search_blocks', partFilter: 'database' },
      },
      code: { columns: ['d.code'], match: 'substring' },
    },
  },
  sort: {
    param: 'sort',
    default: 'relevance',
    options: {
      // Every match holds all the words, so the shortest names are the closest matches; ordering by
      // an indexed expression keeps the first page cheap even when half the corpus matches.
      relevance: {
        needsSearch: true,
        fallback: 'newest',
        orderBy: `length(d.name), ${NEWEST}`,
        // The walk reads ~40 index rows per page (migrations/legal/003), about 20 × 300,000 / matches
        // rows; collecting the matches reads one heap page each. They cost the same near 400.
        walkIndexFrom: 500,
        // A document number: numbers starting with it, shortest first, so the number itself leads
        // (q=7/NQ-CP is 7/NQ-CP, not 17/NQ-CP or 107/NQ-CP, whose names may be shorter); then the
        // shortest. One folding of the code per match: half the time of relevanceOrder's four.
        byMode: { code: { orderBy: codeRelevance } },
      },
      newest: { orderBy: NEWEST },
      oldest: { orderBy: 'd.issued_date ASC, d.id ASC' },
    },
  },
  requireOneOf: ['q', 'type_id', 'field_id', 'agency_id', 'status_id', 'issued_from', 'issued_to'],
  // The relevance walk reads names from the index only (migrations/legal/003).
  keysFirst: true,
  subresources: { relations: legalRelations },
};

const catalog = (
  path: string,
  table: string,
  fields: Record<string, string>,
  order: string,
): DatasetSpec => ({
  path,
  from: `${table} c`,
  idColumn: 'c.id',
  listFields: fields,
  defaultOrder: order,
  detail: false,
});

export const legalCatalogs: DatasetSpec[] = [
  catalog(
    'catalogs/databases',
    'legal_databases',
    { id: 'c.id', name: 'c.name', description: 'c.description' },
    'c.sort_order, c.id',
  ),
  catalog('catalogs/document-types', 'legal_document_types', { id: 'c.id', name: 'c.name' }, 'c.id'),
  catalog('catalogs/law-fields', 'legal_fields', { id: 'c.id', name: 'c.name' }, 'c.id'),
  catalog(
    'catalogs/statuses',
    'legal_statuses',
    { id: 'c.id', name: 'c.name', name_en: 'c.name_en' },
    'c.id',
  ),
  {
    ...catalog(
      'catalogs/agencies',
      'legal_agencies',
      { id: 'c.id', name: 'c.name', short_name: 'c.short_name' },
      'c.id',
    ),
    // q=BTC finds Bộ Tài chính by its short name; "UBND Hà Nội" its name (aliases).
    // Stored by migrations/legal/006_agency_stored_words.sql.
    ...wordPrefixSearch(['c.name', 'c.short_name'], 'c.id', {
      rankText: 'c.name_terms',
      spelled: ['c.name_spelled'],
      vectors: ['c.name_words', 'c.short_name_words'],
      aliases: ORGANISATION_ALIASES,
    }),
  },
];

export const LEGAL_DATASETS: DatasetSpec[] = [legalDocuments, ...legalCatalogs];
