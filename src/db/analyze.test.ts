import { TEST_DATABASES } from '../../test/support/databases';
import { analyzeTables } from './analyze';

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
      expect(first.map((t) => t.replace(/^.*\./, ''))).toEqual(['docs']);
      expect(await reltuples('docs')).toBe(500);
      expect(await analyzeTables(db, 'unanalysed')).toEqual([]);
      // An import grew it: 'all' takes its statistics again.
      await db.query("INSERT INTO docs SELECT g, 'QD-' || g FROM generate_series(501, 2000) g");
      expect((await analyzeTables(db, 'all')).map((t) => t.replace(/^.*\./, ''))).toEqual(['docs']);
      expect(await reltuples('docs')).toBe(2000);
      expect(await reltuples('later')).toBe(-1);
    } finally {
      await db.close();
    }
  });
});
