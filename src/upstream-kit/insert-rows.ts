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

/**
 * `ON CONFLICT (key) DO UPDATE SET col = EXCLUDED.col, … WHERE (the row) IS DISTINCT FROM (the new
 * one)` for idempotent upserts: a row that is already as the file says is left alone, so loading a
 * file again writes nothing (no dead row versions, no triggers' work, `touch`, e.g. `updated_at =
 * now()`, unmoved), and only rows that change are rewritten.
 */
export function upsertClause(
  table: string,
  key: string,
  columns: readonly string[],
  touch: readonly string[] = [],
): string {
  const cols = columns.filter((c) => c !== key);
  const set = [...cols.map((c) => `${c} = EXCLUDED.${c}`), ...touch];
  const now = cols.map((c) => `${table}.${c}`).join(', ');
  const next = cols.map((c) => `EXCLUDED.${c}`).join(', ');
  return `ON CONFLICT (${key}) DO UPDATE SET ${set.join(', ')} WHERE (${now}) IS DISTINCT FROM (${next})`;
}
