import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { parse } from 'yaml';
import { migrate } from '../../src/db/migrate';
import { generateLegalCorpus } from '../../src/data/legal-corpus';
import { BUILTIN_UPSTREAMS, builtinUpstream } from '../../src/upstreams/builtin-upstreams';
import { localUpstreamPorts } from '../../src/runtime/local-upstreams';
import { compileConfig } from '../../src/config/compile-config';
import { legalAgencies } from '../../src/upstreams/legal/legal-seed';
import { projectRoot } from '../../src/util/project-root';
import { silentLogger } from '../../src/util/logger';
import { TEST_DATABASES } from '../support/databases';
import { loadRawConfig } from '../../src/config/load-config';
import type { RawConfig } from '../../src/config/load-config';

type DeclaredParam = RawConfig['datasets']['datasets'][number]['list']['params'][string];

/** A value of the declared type (the upstream may still refuse it: only being read matters here). */
function sampleValue(p: DeclaredParam): string {
  if ('default' in p && p.default !== undefined) return String(p.default);
  switch (p.type) {
    case 'string':
      return 'a';
    case 'integer':
      return String(p.min ?? 1);
    case 'boolean':
      return 'true';
    case 'date':
      return '2020-01-01';
    case 'enum':
      return p.values[0]!;
    case 'id':
      return '1';
    case 'point':
      return '21.03,105.85';
  }
}

describe('built-in upstream registry', () => {
  it('takes an upstream named after an object property ("constructor", a valid name) for an external one', () => {
    expect(builtinUpstream('constructor')).toBeUndefined();
    expect(builtinUpstream('legal')).toBe(BUILTIN_UPSTREAMS.legal);
    const raw = loadRawConfig(join(projectRoot(), 'config'));
    const name: string = 'constructor';
    raw.upstreams.upstreams[name] = { url: 'http://127.0.0.1:18999', timeout_ms: 5000, pool_size: 4 };
    const ports = localUpstreamPorts(compileConfig(raw)).map((p) => p.what);
    expect(ports).not.toContain('upstreams.constructor.url');
    expect(ports).toContain('upstreams.legal.url');
  });

  it('has one entry per upstream of config/upstreams.yaml, with existing migration sets', () => {
    const file = parse(readFileSync(join(projectRoot(), 'config', 'upstreams.yaml'), 'utf8')) as {
      upstreams: Record<string, unknown>;
    };
    expect(Object.keys(BUILTIN_UPSTREAMS).sort()).toEqual(Object.keys(file.upstreams).sort());
    for (const [name, u] of Object.entries(BUILTIN_UPSTREAMS)) {
      expect(u.name).toBe(name);
      for (const set of u.migrationSets)
        expect(existsSync(join(projectRoot(), 'migrations', set))).toBe(true);
    }
  });

  it('generates the same documents and ids for the same seed, and others for another seed', () => {
    const agencies = legalAgencies();
    const a = generateLegalCorpus({ seed: 3, agencies, withContent: false }, 200);
    const b = generateLegalCorpus({ seed: 3, agencies, withContent: false }, 200);
    const c = generateLegalCorpus({ seed: 4, agencies, withContent: false }, 200);
    expect(b).toEqual(a);
    expect(c.documents[0]!.id).not.toBe(a.documents[0]!.id);
  });

  it('never has a document expire before it took effect, also one another replaced', () => {
    const { documents, relations } = generateLegalCorpus(
      { seed: 1, agencies: legalAgencies(), withContent: false },
      6000,
    );
    expect(relations.some((r) => r.kind === 'replaces')).toBe(true);
    const backwards = documents.filter(
      (d) => d.expired_date !== null && d.effective_date !== null && d.expired_date < d.effective_date,
    );
    expect(backwards.map((d) => [d.code, d.effective_date, d.expired_date])).toEqual([]);
  });

  it('builds document numbers in the usual formats', () => {
    const { documents } = generateLegalCorpus(
      { seed: 1, agencies: legalAgencies(), withContent: false },
      2000,
    );
    const codes = documents.map((d) => d.code);
    expect(codes.some((c) => /^\d+\/\d{4}\/NĐ-CP$/.test(c))).toBe(true);
    expect(codes.some((c) => /^\d+\/\d{4}\/TT-BTC$/.test(c))).toBe(true);
    expect(codes.some((c) => /^\d+\/\d{4}\/QH1\d$/.test(c))).toBe(true);
  });
});

describe.each(TEST_DATABASES)('built-in upstreams on $name', (tdb) => {
  it('migrate and seed once per database: a second seed changes nothing', async () => {
    const db = await tdb.open();
    try {
      for (const u of Object.values(BUILTIN_UPSTREAMS)) {
        for (const set of u.migrationSets) await migrate(db, set);
        for (const set of u.migrationSets) expect(await migrate(db, set)).toEqual([]);
        await u.seed(db, { scale: 0.02 });
      }
      const count = async () =>
        (
          await db.query<{ n: number }>(
            'SELECT (SELECT count(*) FROM legal_documents) + (SELECT count(*) FROM directory_organisations) + (SELECT count(*) FROM mof_catalog_items) AS n',
          )
        ).rows[0]!.n;
      const before = await count();
      for (const u of Object.values(BUILTIN_UPSTREAMS)) await u.seed(db, { scale: 0.02, seed: 99 });
      expect(await count()).toBe(before);
      for (const u of Object.values(BUILTIN_UPSTREAMS)) {
        const app = u.createApp({ db, logger: silentLogger() });
        expect((await request(app).get('/healthz')).status).toBe(200);
      }
      // Every list parameter datasets.yaml declares is one its built-in upstream reads: one it did
      // not would be refused (unknown_parameter), where it used to be ignored, the list unfiltered.
      const apps = new Map(
        Object.values(BUILTIN_UPSTREAMS).map((u) => [u.name, u.createApp({ db, logger: silentLogger() })]),
      );
      const unread: string[] = [];
      for (const ds of loadRawConfig(join(projectRoot(), 'config')).datasets.datasets) {
        for (const [name, param] of Object.entries(ds.list.params)) {
          const path = `/${ds.upstream_path ?? ds.path}?${name}=${encodeURIComponent(sampleValue(param))}`;
          const r = await request(apps.get(ds.upstream)!).get(path);
          if (r.body.code === 'unknown_parameter') unread.push(`${ds.path}: ${name}`);
        }
      }
      expect(unread).toEqual([]);
    } finally {
      await db.close();
    }
  }, 120_000);
});
