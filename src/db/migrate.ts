import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../util/project-root';
import { F_SPELLING_SQL } from '../util/tone-placement';
import type { Logger } from '../util/logger';
import type { Db } from './db';

export const MIGRATIONS_DIR = join(projectRoot(), 'migrations');

/** A file's content as recorded: line endings normalised, so a checkout with CRLF is the same file. */
function checksumOf(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

/**
 * Applies migrations/<set>/*.sql in name order, each once, recorded in schema_migrations with its
 * checksum. A transaction-scoped advisory lock serialises replicas that start together. A file
 * applied before whose content has changed since is not run again (its change would never reach a
 * database that ran it): `onEdited` is told, so the start can say so. Rows from before checksums
 * were kept take the file's checksum as it is now. Files recorded that this build does not have (a
 * newer build migrated the database) go to `onFuture`: not refused, since an old replica of a
 * rolling upgrade, or a rollback, starts on the newer schema by design (migrations only add).
 */
export async function migrate(
  db: Db,
  set: string,
  dir: string = join(MIGRATIONS_DIR, set),
  onEdited: (file: string) => void = () => undefined,
  onFuture: (files: string[]) => void = () => undefined,
): Promise<string[]> {
  await withRetry(() =>
    db.exec(`CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public;
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
CREATE TABLE IF NOT EXISTS schema_migrations (set_name text NOT NULL, name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(), checksum text, PRIMARY KEY (set_name, name))`),
  );
  // A table from before checksums gets the column once: ALTER takes the table's strongest lock,
  // which every start would otherwise queue for behind a long migration of another replica.
  await withRetry(async () => {
    const has = await db.query(
      "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('schema_migrations') AND attname = 'checksum'",
    );
    if (has.rows.length === 0)
      await db.exec('ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text');
  });
  await withRetry(() => ensureKitFunctions(db));
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const applied: string[] = [];
  for (const file of files) {
    const sql = readFileSync(join(dir, file), 'utf8');
    const sum = checksumOf(sql);
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`migrate:${set}`]);
      const seen = await tx.query<{ checksum: string | null }>(
        'SELECT checksum FROM schema_migrations WHERE set_name = $1 AND name = $2',
        [set, file],
      );
      const row = seen.rows[0];
      if (row !== undefined) {
        if (row.checksum === null)
          await tx.query('UPDATE schema_migrations SET checksum = $3 WHERE set_name = $1 AND name = $2', [
            set,
            file,
            sum,
          ]);
        else if (row.checksum !== sum) onEdited(file);
        return false;
      }
      for (const stmt of splitSql(sql)) await tx.query(stmt);
      await tx.query('INSERT INTO schema_migrations (set_name, name, checksum) VALUES ($1, $2, $3)', [
        set,
        file,
        sum,
      ]);
      return true;
    });
    if (done) applied.push(file);
  }
  let names: string[] = [];
  await withRetry(async () => {
    const recorded = await db.query<{ name: string }>(
      'SELECT name FROM schema_migrations WHERE set_name = $1 ORDER BY name',
      [set],
    );
    names = recorded.rows.map((r) => r.name);
  });
  const future = names.filter((name) => !files.includes(name));
  if (future.length > 0) onFuture(future);
  return applied;
}

/** migrate, saying in the log what it applied and which applied file has changed since it ran. */
export async function migrateLogged(db: Db, set: string, logger: Logger): Promise<string[]> {
  const applied = await migrate(
    db,
    set,
    undefined,
    (file) =>
      logger.warn(
        { set, migration: file },
        'a migration file has changed since it was applied: the change is not applied; put it in a new file',
      ),
    (files) =>
      logger.warn(
        { set, migrations: files },
        'the database holds migrations this build does not have: a newer build migrated it; this one runs on that schema',
      ),
  );
  if (applied.length > 0) logger.info({ set, migrations: applied }, 'migrations applied');
  return applied;
}

/**
 * public.f_unaccent: unaccent with its dictionary named, so that it is IMMUTABLE and can be indexed.
 * The kit's keyword search folds columns with it, so every set gets it here, not only the sets
 * whose first migration happened to define it (a new team's search failed at its first query).
 */
const F_UNACCENT =
  "CREATE OR REPLACE FUNCTION public.f_unaccent(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$";

const KIT_FUNCTIONS: readonly (readonly [string, string])[] = [
  ['public.f_unaccent(text)', F_UNACCENT],
  ['public.f_spelling(text)', F_SPELLING_SQL],
];

/**
 * Defines the functions the kit's SQL calls, each once per database when missing: the built-in
 * sets' migrations take the same lock to replace f_unaccent.
 */
function ensureKitFunctions(db: Db): Promise<void> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('lookup:f_unaccent'))");
    for (const [signature, sql] of KIT_FUNCTIONS) {
      const found = await tx.query<{ present: boolean }>(
        'SELECT to_regprocedure($1) IS NOT NULL AS present',
        [signature],
      );
      if (!found.rows[0]?.present) await tx.query(sql);
    }
  });
}

/** Splits a migration into statements; bodies of functions use $$ quoting and are kept whole. */
export function splitSql(sql: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inDollar = false;
  for (const line of sql.split('\n')) {
    if (/^\s*--/.test(line) && !inDollar) continue;
    const dollars = (line.match(/\$\$/g) ?? []).length;
    if (dollars % 2 === 1) inDollar = !inDollar;
    cur += line + '\n';
    if (!inDollar && /;\s*$/.test(line)) {
      if (cur.trim()) out.push(cur.trim().replace(/;$/, ''));
      cur = '';
    }
  }
  if (cur.trim()) out.push(cur.trim().replace(/;$/, ''));
  return out;
}

/** CREATE ... IF NOT EXISTS can still collide when two processes run it at once; the second try sees it. */
async function withRetry(fn: () => Promise<void>, tries = 3): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= tries) throw err;
      await new Promise((r) => setTimeout(r, 50 * i));
    }
  }
}
