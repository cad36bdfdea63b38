import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from './migrate';
import { openPgliteDb } from './pglite-db';

describe('migrate, for a set of a new team', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lookup-migrate-'));
    writeFileSync(
      join(dir, '001_fuel.sql'),
      'CREATE TABLE fuel_prices (id text PRIMARY KEY, name text NOT NULL);\n',
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("gives a set that only creates its table the f_unaccent the kit's keyword search folds columns with", async () => {
    const db = await openPgliteDb();
    try {
      expect(await migrate(db, 'fuel', dir)).toEqual(['001_fuel.sql']);
      const r = await db.query<{ v: string }>("SELECT lower(public.f_unaccent('Xăng RON 95 Hà Nội')) AS v");
      expect(r.rows[0]!.v).toBe('xang ron 95 ha noi');
      // Again, as every replica's start does: nothing to apply, the function still there.
      expect(await migrate(db, 'fuel', dir)).toEqual([]);
      expect((await db.query<{ v: string }>("SELECT public.f_unaccent('Đà') AS v")).rows[0]!.v).toBe('Da');
    } finally {
      await db.close();
    }
  });
});
