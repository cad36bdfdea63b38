import type { Queryable } from './db';

/**
 * ANALYZE for the tables of the connection's schemas that hold rows: all of them, or only those
 * never analysed (reltuples is -1 until then). PGlite runs no autovacuum: without this, the
 * sample data's tables never get the statistics the planner needs to choose an index (a trigram
 * index on document numbers among them), and searches read their tables row by row. Empty tables
 * are left for later: statistics taken on none of their rows would outlive the rows loaded next.
 * Returns the tables analysed.
 */
export async function analyzeTables(db: Queryable, which: 'unanalysed' | 'all'): Promise<string[]> {
  const r = await db.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname = ANY (current_schemas(false))
        AND pg_relation_size(c.oid) > 0 AND ($1 OR c.reltuples < 0)
      ORDER BY 1`,
    [which === 'all'],
  );
  const names = r.rows.map((row) => row.name);
  for (const name of names) await db.query(`ANALYZE ${name}`);
  return names;
}
