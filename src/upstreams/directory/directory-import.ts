import { z } from 'zod';
import { isoDate, isoDateTime, prefixedId } from '../../data/import-fields';
import type { ImportTarget } from '../../data/import-jsonl';
import { DIRECTORY_KINDS } from '../../data/directory-generator';
import { insertRows, upsertClause } from '../../upstream-kit';
import { DIRECTORY_COLUMNS } from './directory-rows';

const code = (max: number): z.ZodDefault<z.ZodString> => z.string().max(max).default('');

function directoryImport(dataset: string, prefix: string): ImportTarget {
  const row = z
    .object({
      id: prefixedId(prefix),
      tax_code: z.string().regex(/^\d{10}(-\d{3})?$/, 'must be 10 digits (or 10-3 for a branch)'),
      name: z.string().min(1).max(500),
      address: z.string().max(1000).default(''),
      province_code: code(10),
      province_name: code(200),
      ward_code: code(10),
      ward_name: code(200),
      is_active: z.boolean(),
      company_type: z.string().max(200).default(''),
      status_id: z.number().int().min(0).max(99),
      cert_date: isoDate.nullable().default(null),
      updated_at: isoDateTime,
    })
    .strict();
  return {
    dataset,
    migrationSets: ['directory'],
    schema: row,
    async upsert(tx, rows) {
      const values = rows.map((r) =>
        DIRECTORY_COLUMNS.map((c) => (c === 'dataset' ? dataset : (r as Record<string, unknown>)[c])),
      );
      await insertRows(tx, 'directory_organisations', DIRECTORY_COLUMNS, values, {
        onConflict: upsertClause('directory_organisations', 'id', DIRECTORY_COLUMNS),
      });
    },
  };
}

export const DIRECTORY_IMPORTS: ImportTarget[] = DIRECTORY_KINDS.map((k) =>
  directoryImport(k.path, k.prefix),
);
