import type { DatasetSpec } from '../../upstream-kit';
import { eq, wordPrefixSearch } from '../../upstream-kit';

/** Every finance-ministry catalogue has the same shape: code, name, and is_active on detail. */
export function mofCatalogDataset(path: string, idPrefix: string): DatasetSpec {
  if (!/^[a-z0-9-]+$/.test(path)) throw new Error(`bad catalogue path ${path}`);
  return {
    path,
    idPrefix,
    from: 'mof_catalog_items m',
    idColumn: 'm.id',
    scope: `m.catalog = '${path}'`,
    listFields: { id: 'm.id', code: 'm.code', name: 'm.name' },
    detailFields: { is_active: 'm.is_active' },
    filters: { code: eq('m.code', { type: 'string', maxLength: 50 }) },
    // Ranked by the name, as people search; a q that is a whole code first (q=TS: TS before TSKH).
    // Stored by migrations/mof-catalogs/002_stored_words.sql.
    ...wordPrefixSearch(['m.name', 'm.code'], 'm.sort_order, m.code, m.id', {
      codeColumn: 'm.code',
      rankText: 'm.name_terms',
      spelled: ['m.name_spelled'],
      vectors: ['m.name_words', 'm.code_words'],
    }),
  };
}

/** Catalogue paths and id prefixes (config/datasets.yaml). */
export const MOF_CATALOG_PATHS: readonly (readonly [string, string])[] = [
  ['dmdc-business-unit-types', 'lhdv_'],
  ['dmdc-document-exchange-identifiers', 'mdd_'],
  ['dmdc-document-exchange-identifiers-tt10', 'mdt_'],
  ['dmdc-document-system-identifiers', 'mhs_'],
  ['dmdc-academic-titles', 'hhhv_'],
  ['dmdc-disciplinary-forms', 'hthk_'],
  ['dmdc-share-types', 'lcp_'],
  ['dmdc-commendation-types', 'lkt_'],
  ['dmdc-capital-source-types', 'lnv_'],
  ['dmdc-emulation-titles-awards', 'dhtd_'],
  ['dmdc-legal-statuses', 'ttpl_'],
];

export const MOF_DATASETS: DatasetSpec[] = MOF_CATALOG_PATHS.map(([p, prefix]) =>
  mofCatalogDataset(p, prefix),
);
