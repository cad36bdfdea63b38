import { z } from 'zod';
import { positiveInt } from '../../data/import-fields';
import type { ImportTarget } from '../../data/import-jsonl';
import { insertRows, upsertClause } from '../../upstream-kit';

/**
 * The legal catalogues real documents refer to by id and that grow with real data: issuing
 * agencies, document types, law fields. Databases and validity statuses are fixed by the
 * reference (five databases; six statuses and their transitions), so they are not imported.
 * Load a catalogue before the documents that name its ids.
 */
function catalogImport<Shape extends z.ZodRawShape>(
  dataset: string,
  table: string,
  shape: Shape,
): ImportTarget<{ id: number }> {
  const row = z.object({ id: positiveInt, ...shape }).strict();
  const columns = Object.keys(row.shape);
  return {
    dataset,
    migrationSets: ['legal'],
    schema: row as unknown as z.ZodType<{ id: number }>,
    async upsert(tx, rows) {
      const values = rows.map((r) => columns.map((c) => (r as Record<string, unknown>)[c]));
      await insertRows(tx, table, columns, values, { onConflict: upsertClause(table, 'id', columns) });
    },
  };
}

export const LEGAL_CATALOG_IMPORTS: ImportTarget<{ id: number }>[] = [
  catalogImport('catalogs/agencies', 'legal_agencies', {
    name: z.string().min(1).max(500),
    /** What q= also finds the agency by (BTC for Bộ Tài chính); may be empty. */
    short_name: z.string().max(50).default(''),
    level: z.string().min(1).max(50).default('other'),
  }),
  catalogImport('catalogs/document-types', 'legal_document_types', {
    name: z.string().min(1).max(200),
    /** The suffix family of the type's document numbers (L, ND, TT…). */
    code: z.string().min(1).max(20),
  }),
  catalogImport('catalogs/law-fields', 'legal_fields', { name: z.string().min(1).max(200) }),
];
