import type { Db } from '../../db/db';
import { loadAdminUnits } from '../../data/admin-units';
import {
  buildAgencies,
  LEGAL_DATABASES,
  LEGAL_DOCUMENT_TYPES,
  LEGAL_FIELDS,
  LEGAL_STATUSES,
} from '../../data/legal-catalogs';
import { generateLegalCorpus } from '../../data/legal-corpus';
import { insertRows } from '../../upstream-kit';
import type { Queryable } from '../../db/db';
import type { SeedOptions } from '../builtin-upstreams';
import { LEGAL_DOCUMENT_COLUMNS, legalDocumentValues } from './legal-rows';

export const DEFAULT_LEGAL_DOCUMENTS = 6000;

/**
 * The catalogs every legal database needs (seed and importer alike); existing rows are kept. The
 * fixed ones (databases, statuses) are completed; a growable one (document types, law fields,
 * agencies) is filled by the importer only while empty, so that one loaded from real data (`npm
 * run import -- catalogs/agencies …`) is not mixed with sample rows under the ids it does not
 * use; the sample seed completes them all, since its documents name every sample id.
 */
export async function insertLegalCatalogs(tx: Queryable, forSample: boolean): Promise<void> {
  const keep = { onConflict: 'ON CONFLICT (id) DO NOTHING' };
  const fill = async (
    table: string,
    columns: string[],
    rows: unknown[][],
    growable: boolean,
  ): Promise<void> => {
    if (growable && !forSample && (await tx.query(`SELECT 1 FROM ${table} LIMIT 1`)).rows.length > 0) return;
    await insertRows(tx, table, columns, rows, keep);
  };
  await fill(
    'legal_databases',
    ['id', 'name', 'description', 'sort_order'],
    LEGAL_DATABASES.map((d, i) => [d.id, d.name, d.description, i + 1]),
    false,
  );
  await fill(
    'legal_document_types',
    ['id', 'name', 'code'],
    LEGAL_DOCUMENT_TYPES.map((t) => [t.id, t.name, t.code]),
    true,
  );
  await fill(
    'legal_fields',
    ['id', 'name'],
    LEGAL_FIELDS.map((f) => [f.id, f.name]),
    true,
  );
  await fill(
    'legal_statuses',
    ['id', 'name', 'name_en'],
    LEGAL_STATUSES.map((s) => [s.id, s.name, s.name_en]),
    false,
  );
  await fill(
    'legal_agencies',
    ['id', 'name', 'short_name', 'level'],
    legalAgencies().map((a) => [a.id, a.name, a.short_name, a.level]),
    true,
  );
}

export function legalAgencies(): ReturnType<typeof buildAgencies> {
  return buildAgencies(loadAdminUnits().map((p) => p.fullName));
}

/** Seeds once per database, in one transaction: a crash leaves no half-seeded data behind. */
export async function seedLegal(db: Db, opts: SeedOptions): Promise<void> {
  const seed = opts.seed ?? 1;
  const count = Math.max(60, Math.round(DEFAULT_LEGAL_DOCUMENTS * (opts.scale ?? 1)));
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['seed:legal']);
    if ((await tx.query('SELECT 1 FROM legal_seed_state WHERE id = 1')).rows.length > 0) return;
    await insertLegalCatalogs(tx, true);
    const corpus = generateLegalCorpus({ seed, agencies: legalAgencies(), withContent: true }, count);
    await insertRows(
      tx,
      'legal_documents',
      LEGAL_DOCUMENT_COLUMNS,
      corpus.documents.map(legalDocumentValues),
      {
        // Each statement's trigger upserts the search blocks its rows touch (1,024 documents a
        // block): fewer, larger statements rewrite each block fewer times (6,000 rows on PGlite:
        // 2.9 s in batches of 1,000, 3.3 s in batches of 200).
        batchSize: 1000,
        onConflict: 'ON CONFLICT (id) DO NOTHING',
      },
    );
    await insertRows(
      tx,
      'legal_document_relations',
      ['from_id', 'kind', 'to_id'],
      corpus.relations.map((r) => [r.from_id, r.kind, r.to_id]),
      {
        onConflict: 'ON CONFLICT DO NOTHING',
      },
    );
    await tx.query('INSERT INTO legal_seed_state (id, options) VALUES (1, $1)', [
      JSON.stringify({ seed, count }),
    ]);
  });
}
