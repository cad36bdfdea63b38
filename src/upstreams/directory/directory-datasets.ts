import type { DatasetSpec } from '../../upstream-kit';
import { eq, wordPrefixSearch } from '../../upstream-kit';
import { DIRECTORY_KINDS } from '../../data/directory-generator';
import { ORGANISATION_ALIASES } from '../search-aliases';

/** All directory lists share one table and one shape; the dataset column keeps them apart. */
export function directoryDataset(path: string, idPrefix: string): DatasetSpec {
  if (!/^[a-z0-9-]+$/.test(path)) throw new Error(`bad directory dataset path ${path}`);
  return {
    path,
    idPrefix,
    from: 'directory_organisations o',
    idColumn: 'o.id',
    scope: `o.dataset = '${path}'`,
    listFields: {
      id: 'o.id',
      tax_code: 'o.tax_code',
      name: 'o.name',
      address: 'o.address',
      province_name: 'o.province_name',
      ward_name: 'o.ward_name',
      is_active: 'o.is_active',
    },
    detailFields: {
      province_code: 'o.province_code',
      ward_code: 'o.ward_code',
      company_type: 'o.company_type',
      status_id: 'o.status_id',
      cert_date: `to_char(o.cert_date, 'YYYY-MM-DD')`,
      updated_at: `to_char(o.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`,
    },
    filters: {
      tax_code: eq('o.tax_code', { type: 'string', maxLength: 20 }),
      province_code: eq('o.province_code', { type: 'string', maxLength: 10 }),
      ward_code: eq('o.ward_code', { type: 'string', maxLength: 10 }),
      is_active: eq('o.is_active', { type: 'boolean' }),
    },
    // Stored by migrations/directory/003_stored_name_words.sql and 004_stored_name_terms.sql.
    ...wordPrefixSearch(['o.name'], 'o.name, o.id', {
      rankText: 'o.name_terms',
      spelled: ['o.name_spelled'],
      vectors: ['o.name_words'],
      aliases: ORGANISATION_ALIASES,
    }),
  };
}

export const DIRECTORY_DATASETS: DatasetSpec[] = DIRECTORY_KINDS.map((k) =>
  directoryDataset(k.path, k.prefix),
);
