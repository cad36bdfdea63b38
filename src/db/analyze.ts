import type { Queryable } from './db';

/**
 * The tables of the connection's schemas that hold pages and meet `condition` (on pg_class c, with
 * `pages` its size in blocks; `params` bind from $1), by schema-qualified name.
 */
async function schemaTables(db: Queryable, condition: string, params: unknown[]): Promise<string[]> {
  const r = await db.query<{ name: string }>(
    `SELECT name FROM (
       SELECT format('%I.%I', n.nspname, c.relname) AS name, c.reltuples, c.relallvisible,
              pg_relation_size(c.oid) / current_setting('block_size')::int AS pages
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind = 'r' AND n.nspname = ANY (current_schemas(false))) c
      WHERE pages > 0 AND (${condition})
      ORDER BY 1`,
    params,
  );
  return r.rows.map((row) => row.name);
}

/**
 * ANALYZE for the tables of the connection's schemas that hold rows: all of them, or only those
 * never analysed (reltuples is -1 until then). PGlite runs no autovacuum: without this, the
 * sample data's tables never get the statistics the planner needs to choose an index (a trigram
 * index on document numbers among them), and searches read their tables row by row. Empty tables
 * are left for later: statistics taken on none of their rows would outlive the rows loaded next.
 * Returns the tables analysed.
 */
export async function analyzeTables(db: Queryable, which: 'unanalysed' | 'all'): Promise<string[]> {
  const names = await schemaTables(db, '$1 OR c.reltuples < 0', [which === 'all']);
  for (const name of names) await db.query(`ANALYZE ${name}`);
  return names;
}

/** Tables this small are read whole as cheaply as their visibility map; they are left alone. */
const MIN_PAGES = 8;

/**
 * VACUUM (ANALYZE) for the tables of the connection's schemas of which fewer than half the pages
 * are marked all-visible (pg_class.relallvisible, as the last VACUUM, ANALYZE or CREATE INDEX
 * counted them; 0 for a table never vacuumed). An index-only scan reads the heap for every tuple on
 * a page not so marked, and only VACUUM marks them. A migration that rewrites a table (a stored
 * generated column redefined: legal 004, 005) leaves none marked, and autovacuum, which comes for
 * dead and inserted rows, has no reason to come: the legal relevance walk then read 302,347
 * buffers a page instead of 2,000 on 500,000 documents (p95 382 ms against 15). PGlite runs no
 * autovacuum at all, so without this the seed's and an import's pages would never be marked.
 * `analyze: false` for a caller that has just analysed every table (the import CLI): the vacuum
 * then only marks pages, instead of sampling the same rows again. Returns the tables it set out
 * to vacuum.
 */
export async function vacuumUnvisited(
  db: Queryable,
  { analyze = true }: { analyze?: boolean } = {},
): Promise<string[]> {
  const names = await schemaTables(db, 'pages >= $1 AND c.relallvisible * 2 < pages', [MIN_PAGES]);
  // SKIP_LOCKED: a table autovacuum or another replica's start is vacuuming already is left to it,
  // rather than holding this start until it finishes.
  const options = analyze ? 'ANALYZE, SKIP_LOCKED' : 'SKIP_LOCKED';
  for (const name of names) await db.query(`VACUUM (${options}) ${name}`);
  return names;
}
