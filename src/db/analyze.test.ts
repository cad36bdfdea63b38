import { TEST_DATABASES } from '../../test/support/databases';
import { analyzeTables, vacuumUnvisited } from './analyze';
import type { Queryable } from './db';

/** A table of 3,000 rows on well over 8 pages, none of them marked yet. */
async function createDocs(db: Queryable): Promise<void> {
  await db.query('CREATE TABLE docs (id int PRIMARY KEY, name text)');
  await db.query("INSERT INTO docs SELECT g, repeat('Quyết định ', 8) || g FROM generate_series(1, 3000) g");
}

/** Pages of `docs` marked all-visible. */
async function visiblePages(db: Queryable): Promise<number> {
  const r = await db.query<{ n: number }>(
    "SELECT relallvisible AS n FROM pg_class WHERE oid = to_regclass('docs')",
  );
  return Number(r.rows[0]!.n);
}

/**
 * Waits until no other connection to the database holds a snapshot that may not see the rows of
 * `docs` (one taken before they were written), or a transaction begun before them that has written
 * (its xid, with no snapshot held, as a row locked FOR UPDATE leaves): until then VACUUM rightly leaves
 * their pages unmarked, and other suites share the PostgreSQL test database. PGlite has no other connection.
 * Gives up after 30 s, leaving the assertion that follows to say what it found (the tests that
 * wait have room for two such waits).
 */
async function othersCaughtUp(db: Queryable): Promise<void> {
  for (const until = Date.now() + 30_000; Date.now() < until;) {
    const older = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND greatest(age(backend_xmin), age(backend_xid)) >= (SELECT min(age(xmin)) FROM docs)`,
    );
    if (Number(older.rows[0]!.n) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Table names without their schema (the PostgreSQL suites run in a schema of their own). */
const unqualified = (names: string[]): string[] => names.map((t) => t.replace(/^.*\./, ''));

describe.each(TEST_DATABASES)('planner statistics on $name', (testDb) => {
  it('analyses the tables with rows that never were, once, and leaves empty ones for later', async () => {
    const db = await testDb.open();
    try {
      await db.query('CREATE TABLE docs (id int PRIMARY KEY, code text)');
      await db.query('CREATE TABLE later (id int PRIMARY KEY)');
      await db.query("INSERT INTO docs SELECT g, 'QD-' || g FROM generate_series(1, 500) g");
      const reltuples = async (table: string) =>
        Number(
          (
            await db.query<{ n: number }>('SELECT reltuples AS n FROM pg_class WHERE oid = to_regclass($1)', [
              table,
            ])
          ).rows[0]?.n,
        );
      expect(await reltuples('docs')).toBe(-1);
      const first = await analyzeTables(db, 'unanalysed');
      expect(unqualified(first)).toEqual(['docs']);
      expect(await reltuples('docs')).toBe(500);
      expect(await analyzeTables(db, 'unanalysed')).toEqual([]);
      // An import grew it: 'all' takes its statistics again.
      await db.query("INSERT INTO docs SELECT g, 'QD-' || g FROM generate_series(501, 2000) g");
      expect(unqualified(await analyzeTables(db, 'all'))).toEqual(['docs']);
      expect(await reltuples('docs')).toBe(2000);
      expect(await reltuples('later')).toBe(-1);
    } finally {
      await db.close();
    }
  });

  it('vacuums the tables whose pages are mostly unmarked, as after a rewrite, and leaves the rest', async () => {
    const db = await testDb.open();
    try {
      await createDocs(db);
      await db.query('CREATE TABLE small (id int PRIMARY KEY)');
      await db.query('INSERT INTO small VALUES (1)');
      const pages = async (): Promise<{ visible: number; all: number }> => {
        const r = await db.query<{ visible: number; all: number }>(
          `SELECT relallvisible AS visible, (pg_relation_size(oid) / 8192)::int AS "all"
             FROM pg_class WHERE oid = to_regclass('docs')`,
        );
        return { visible: Number(r.rows[0]!.visible), all: Number(r.rows[0]!.all) };
      };
      expect((await pages()).all).toBeGreaterThan(8);
      await othersCaughtUp(db);
      expect(unqualified(await vacuumUnvisited(db))).toEqual(['docs']);
      const marked = await pages();
      expect(marked.visible).toBe(marked.all);
      expect(await vacuumUnvisited(db)).toEqual([]);
      // A stored generated column added or redefined rewrites the table: no page is marked after it.
      await db.query('ALTER TABLE docs ADD COLUMN name_folded text GENERATED ALWAYS AS (lower(name)) STORED');
      await db.query('ANALYZE docs');
      expect((await pages()).visible).toBe(0);
      await othersCaughtUp(db);
      expect(unqualified(await vacuumUnvisited(db))).toEqual(['docs']);
      expect((await pages()).visible).toBeGreaterThan(8);
    } finally {
      await db.close();
    }
  }, 90_000);

  it('marks the pages without sampling the rows again when asked not to analyse', async () => {
    const db = await testDb.open();
    try {
      await createDocs(db);
      const sampled = async (): Promise<number> =>
        Number(
          (
            await db.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stats WHERE tablename = 'docs' AND schemaname = ANY (current_schemas(false))",
            )
          ).rows[0]!.n,
        );
      await othersCaughtUp(db);
      expect(unqualified(await vacuumUnvisited(db, { analyze: false }))).toEqual(['docs']);
      expect(await visiblePages(db)).toBeGreaterThan(8);
      expect(await sampled()).toBe(0);
      // The default analyses as it vacuums: a rewrite's table gets both.
      await db.query('ALTER TABLE docs ADD COLUMN name_folded text GENERATED ALWAYS AS (lower(name)) STORED');
      expect(unqualified(await vacuumUnvisited(db))).toEqual(['docs']);
      expect(await sampled()).toBe(3);
    } finally {
      await db.close();
    }
  }, 90_000);
});

describe('a vacuum at start beside another on postgres', () => {
  const pg = TEST_DATABASES.find((d) => d.name === 'postgres')!;

  it('leaves a table that another session is vacuuming to it, instead of waiting for it', async () => {
    const db = await pg.open();
    try {
      await createDocs(db);
      // The lock VACUUM takes, held as autovacuum or another replica's start would hold it.
      await db.transaction(async (tx) => {
        await tx.query('LOCK TABLE docs IN SHARE UPDATE EXCLUSIVE MODE');
        const waited = new Promise<string>((resolve) => setTimeout(() => resolve('waited'), 5000).unref());
        const done = vacuumUnvisited(db).then((names) => unqualified(names).join());
        expect(await Promise.race([done, waited])).toBe('docs');
      });
      expect(await visiblePages(db)).toBe(0);
      await othersCaughtUp(db);
      await vacuumUnvisited(db);
      expect(await visiblePages(db)).toBeGreaterThan(8);
    } finally {
      await db.close();
    }
  }, 90_000);
});
