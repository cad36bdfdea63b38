import { z } from 'zod';
import { nonNegativeInt, prefixedId } from '../../data/import-fields';
import type { ImportTarget } from '../../data/import-jsonl';
import { insertRows, upsertClause } from '../../upstream-kit';
import { MOF_CATALOG_PATHS } from './mof-catalogs-datasets';

const COLUMNS = ['id', 'catalog', 'code', 'name', 'is_active', 'sort_order'] as const;

function mofImport(catalog: string, prefix: string): ImportTarget {
  const row = z
    .object({
      id: prefixedId(prefix),
      code: z.string().min(1).max(50),
      name: z.string().min(1).max(500),
      is_active: z.boolean().default(true),
      sort_order: nonNegativeInt.default(0),
    })
    .strict();
  return {
    dataset: catalog,
    migrationSets: ['mof-catalogs'],
    schema: row,
    async upsert(tx, rows) {
      const values = rows.map((r) =>
        COLUMNS.map((c) => (c === 'catalog' ? catalog : (r as Record<string, unknown>)[c])),
      );
      await insertRows(tx, 'mof_catalog_items', COLUMNS, values, {
        onConflict: upsertClause('mof_catalog_items', 'id', COLUMNS),
      });
    },
  };
}

export const MOF_IMPORTS: ImportTarget[] = MOF_CATALOG_PATHS.map(([p, prefix]) => mofImport(p, prefix));
