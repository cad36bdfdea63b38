import type { Queryable } from '../db/db';

/**
 * Multi-row INSERT in batches: one round trip per batch instead of per row, which is what makes
 * seeding thousands of rows on PGlite take seconds. `onConflict` is trusted SQL (e.g. an upsert).
 */
export async function insertRows(
  db: Queryable,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  opts: { batchSize?: number; onConflict?: string } = {},
): Promise<void> {
  // PostgreSQL allows 65,535 bound parameters per statement.
  const batch = Math.max(1, Math.min(opts.batchSize ?? 500, Math.floor(60_000 / columns.length)));
  for (let i = 0; i < rows.length; i += batch) {
    const chunk = rows.slice(i, i + batch);
    const params: unknown[] = [];
    const tuples = chunk.map((row) => {
      const ph = row.map((v) => {
        params.push(v);
        return `$${params.length}`;
      });
      return `(${ph.join(', ')})`;
    });
    const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')} ${opts.onConflict ?? ''}`;
    await db.query(sql, params);
  }
}

/** `ON CONFLICT (key) DO UPDATE SET col = EXCLUDED.col, …` for idempotent upserts. */
export function upsertClause(key: string, columns: readonly string[]): string {
  const set = columns.filter((c) => c !== key).map((c) => `${c} = EXCLUDED.${c}`);
  return `ON CONFLICT (${key}) DO UPDATE SET ${set.join(', ')}`;
}
