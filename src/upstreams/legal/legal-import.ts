import { z } from 'zod';
import { isoDate, positiveInt, prefixedId, webUrl } from '../../data/import-fields';
import type { Queryable } from '../../db/db';
import type { ImportError, ImportTarget } from '../../data/import-jsonl';
import { LEGAL_DATABASE_IDS } from '../../data/legal-catalogs';
import { insertRows, upsertClause } from '../../upstream-kit';
import { LEGAL_DOCUMENT_COLUMNS } from './legal-rows';
import { insertLegalCatalogs } from './legal-seed';
import { statusOn, vietnamDay } from './legal-status-upkeep';

const row = z
  .object({
    id: prefixedId('vb_'),
    code: z.string().min(1).max(200),
    name: z.string().min(1).max(2000),
    database: z.enum(LEGAL_DATABASE_IDS as [string, ...string[]]),
    type_id: positiveInt,
    field_id: positiveInt,
    agency_id: positiveInt,
    status_id: positiveInt,
    issued_date: isoDate,
    effective_date: isoDate.nullable().default(null),
    expired_date: isoDate.nullable().default(null),
    source_url: webUrl.nullable().default(null),
    signer: z.string().max(200).nullable().default(null),
    content_html: z.string().nullable().default(null),
    content_en_html: z.string().nullable().default(null),
    /** Ids of documents this one replaces / cites; they may arrive in a later file. */
    replaces: z.array(prefixedId('vb_')).default([]),
    cites: z.array(prefixedId('vb_')).default([]),
  })
  .strict();

export type LegalImportRow = z.infer<typeof row>;

/** The catalogue ids a document names: field, table, what it is, the catalog that lists them. */
const REFERENCES = [
  ['type_id', 'legal_document_types', 'document type', 'document-types'],
  ['field_id', 'legal_fields', 'law field', 'law-fields'],
  ['agency_id', 'legal_agencies', 'issuing agency', 'agencies'],
  ['status_id', 'legal_statuses', 'validity status', 'statuses'],
] as const;

/** The catalogues' ids, read once per import: its batches share one transaction, and the catalogues do not change in it. */
const catalogIds = new WeakMap<Queryable, Promise<Set<number>[]>>();

function knownIds(tx: Queryable): Promise<Set<number>[]> {
  let known = catalogIds.get(tx);
  if (!known) {
    known = (async () => {
      await insertLegalCatalogs(tx, false);
      const sets: Set<number>[] = [];
      for (const [, table] of REFERENCES) {
        const ids = await tx.query<{ id: unknown }>(`SELECT id FROM ${table}`);
        sets.push(new Set(ids.rows.map((r) => Number(r.id))));
      }
      return sets;
    })();
    catalogIds.set(tx, known);
  }
  return known;
}

export const legalDocumentsImport: ImportTarget<LegalImportRow> = {
  dataset: 'legal-documents',
  migrationSets: ['legal'],
  schema: row,
  async check(tx, rows) {
    const known = await knownIds(tx);
    const errors: ImportError[] = [];
    for (const { line, row: r } of rows) {
      const unknown = REFERENCES.flatMap(([field, , what, catalog], i) =>
        known[i]!.has(r[field])
          ? []
          : [`${field}: ${r[field]} is not a known ${what} (GET /v1/catalogs/${catalog})`],
      );
      if (unknown.length > 0) errors.push({ line, message: unknown.join('; ') });
    }
    return errors;
  },
  async upsert(tx, rows, now) {
    // The catalogues are in place once per transaction (check ran knownIds for this batch already).
    await knownIds(tx);
    // As the upstream will serve it: a file's "not yet in effect" whose day has come is in effect
    // (legal-status-upkeep.ts), stored so at once, and the same on every load of the file.
    const today = vietnamDay(now);
    rows = rows.map((r) => {
      const status_id = statusOn(r.status_id, r.effective_date, today);
      return status_id === r.status_id ? r : { ...r, status_id };
    });
    await insertRows(
      tx,
      'legal_documents',
      LEGAL_DOCUMENT_COLUMNS,
      rows.map((r) => LEGAL_DOCUMENT_COLUMNS.map((c) => r[c])),
      {
        batchSize: 200,
        onConflict: upsertClause('legal_documents', 'id', LEGAL_DOCUMENT_COLUMNS, ['updated_at = now()']),
      },
    );
    // The file is the truth for the outgoing relations of its documents: those it no longer names
    // go, the rest stay as they are (so loading it again writes nothing) and new ones are added.
    const rel = rows.flatMap((r) => [
      ...r.replaces.map((t) => [r.id, 'replaces', t]),
      ...r.cites.map((t) => [r.id, 'cites', t]),
    ]);
    await tx.query(
      `DELETE FROM legal_document_relations r
        WHERE r.from_id = ANY($1::text[])
          AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[], $4::text[]) AS n(from_id, kind, to_id)
                           WHERE n.from_id = r.from_id AND n.kind = r.kind AND n.to_id = r.to_id)`,
      [rows.map((r) => r.id), rel.map((x) => x[0]), rel.map((x) => x[1]), rel.map((x) => x[2])],
    );
    await insertRows(tx, 'legal_document_relations', ['from_id', 'kind', 'to_id'], rel, {
      onConflict: 'ON CONFLICT DO NOTHING',
    });
  },
};
