import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate } from './migrate';
import { openTestPglite } from '../../test/support/pglite-template';
import { oldStyleTones } from '../util/tone-placement';

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
    const db = await openTestPglite();
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

  it('gives it the f_spelling the relevance order compares typed diacritics with, folding as the code does', async () => {
    const db = await openTestPglite();
    try {
      await migrate(db, 'fuel', dir);
      const names = [
        'Hoà Bình',
        'HÒA BÌNH',
        'Thuỷ Nguyên',
        'Thủy Nguyên',
        'Hoài Ân',
        'Hoàng Mai',
        'Khoẻ',
        'Khỏe',
      ];
      const r = await db.query<{ v: string[] }>(
        'SELECT array_agg(public.f_spelling(n) ORDER BY i) AS v FROM unnest($1::text[]) WITH ORDINALITY AS t(n, i)',
        [names],
      );
      const v = r.rows[0]!.v;
      expect(v).toEqual(names.map((n) => oldStyleTones(n.toLowerCase())));
      expect(v).toEqual([
        'hòa bình',
        'hòa bình',
        'thủy nguyên',
        'thủy nguyên',
        'hoài ân',
        'hoàng mai',
        'khỏe',
        'khỏe',
      ]);
    } finally {
      await db.close();
    }
  });

  it('says which applied file has changed since it ran, without running it again, and takes one only re-saved with CRLF', async () => {
    const own = mkdtempSync(join(tmpdir(), 'lookup-migrate-edit-'));
    const file = join(own, '001_fuel.sql');
    writeFileSync(
      file,
      'CREATE TABLE fuel_prices (id text PRIMARY KEY);\nCREATE INDEX fuel_a ON fuel_prices (id);\n',
    );
    const db = await openTestPglite();
    try {
      const edited: string[] = [];
      const run = () => migrate(db, 'fuel', own, (f) => edited.push(f));
      expect(await run()).toEqual(['001_fuel.sql']);
      writeFileSync(
        file,
        'CREATE TABLE fuel_prices (id text PRIMARY KEY);\r\nCREATE INDEX fuel_a ON fuel_prices (id);\r\n',
      );
      expect([await run(), edited]).toEqual([[], []]);
      writeFileSync(
        file,
        'CREATE TABLE fuel_prices (id text PRIMARY KEY);\nCREATE INDEX fuel_b ON fuel_prices (id);\n',
      );
      expect([await run(), edited]).toEqual([[], ['001_fuel.sql']]);
      const index = await db.query("SELECT 1 FROM pg_indexes WHERE indexname = 'fuel_b'");
      expect(index.rows).toEqual([]);
    } finally {
      await db.close();
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('adds the checksum column to a schema_migrations table made before it, keeping what it records', async () => {
    const own = mkdtempSync(join(tmpdir(), 'lookup-migrate-table-'));
    writeFileSync(join(own, '001_fuel.sql'), 'CREATE TABLE fuel_prices (id text PRIMARY KEY);\n');
    const db = await openTestPglite();
    try {
      await db.exec(`CREATE TABLE schema_migrations (set_name text NOT NULL, name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (set_name, name));
        CREATE TABLE fuel_prices (id text PRIMARY KEY);
        INSERT INTO schema_migrations (set_name, name) VALUES ('fuel', '001_fuel.sql')`);
      expect(await migrate(db, 'fuel', own)).toEqual([]);
      const rows = await db.query<{ checksum: string | null }>('SELECT checksum FROM schema_migrations');
      expect(rows.rows).toEqual([{ checksum: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    } finally {
      await db.close();
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('records the checksum of a file applied before checksums were kept, and holds it to that from then on', async () => {
    const own = mkdtempSync(join(tmpdir(), 'lookup-migrate-old-'));
    const file = join(own, '001_fuel.sql');
    writeFileSync(file, 'CREATE TABLE fuel_prices (id text PRIMARY KEY);\n');
    const db = await openTestPglite();
    try {
      const edited: string[] = [];
      expect(await migrate(db, 'fuel', own)).toEqual(['001_fuel.sql']);
      await db.query('UPDATE schema_migrations SET checksum = NULL');
      expect(await migrate(db, 'fuel', own, (f) => edited.push(f))).toEqual([]);
      writeFileSync(file, 'CREATE TABLE fuel_prices (id text PRIMARY KEY, name text);\n');
      expect(await migrate(db, 'fuel', own, (f) => edited.push(f))).toEqual([]);
      expect(edited).toEqual(['001_fuel.sql']);
    } finally {
      await db.close();
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('names the migrations a newer build applied when an older build starts on its database, and still starts', async () => {
    const newer = mkdtempSync(join(tmpdir(), 'lookup-migrate-newer-'));
    const older = mkdtempSync(join(tmpdir(), 'lookup-migrate-older-'));
    const first = 'CREATE TABLE fuel_prices (id text PRIMARY KEY);\n';
    writeFileSync(join(newer, '001_fuel.sql'), first);
    writeFileSync(join(newer, '002_fuel_name.sql'), 'ALTER TABLE fuel_prices ADD COLUMN name text;\n');
    writeFileSync(join(older, '001_fuel.sql'), first);
    const db = await openTestPglite();
    try {
      const future: string[][] = [];
      const run = (dir: string) => migrate(db, 'fuel', dir, undefined, (files) => future.push(files));
      expect(await run(newer)).toEqual(['001_fuel.sql', '002_fuel_name.sql']);
      expect(await run(newer)).toEqual([]);
      // Another set's files are not this set's future.
      const empty = mkdtempSync(join(tmpdir(), 'lookup-migrate-empty-'));
      expect(await migrate(db, 'other', empty, undefined, (files) => future.push(files))).toEqual([]);
      rmSync(empty, { recursive: true, force: true });
      expect(future).toEqual([]);
      expect(await run(older)).toEqual([]);
      expect(future).toEqual([['002_fuel_name.sql']]);
    } finally {
      await db.close();
      rmSync(newer, { recursive: true, force: true });
      rmSync(older, { recursive: true, force: true });
    }
  });
});
