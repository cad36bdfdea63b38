import { hostname } from 'node:os';
import { join } from 'node:path';
import { compileConfig } from '../../src/config/compile-config';
import { ConfigError, loadRawConfig } from '../../src/config/load-config';
import { localUpstreamPorts, startLocalUpstreams } from '../../src/runtime/local-upstreams';
import { projectRoot } from '../../src/util/project-root';
import { silentLogger } from '../../src/util/logger';
import { freePort } from '../support/free-port';
import { openTestPglite } from '../support/pglite-template';
import type { Db } from '../../src/db/db';

/** The shipped config with the given upstream URLs; every other built-in points off this machine. */
function configWith(urls: Record<string, string>, timeoutMs?: number) {
  const raw = loadRawConfig(join(projectRoot(), 'config'));
  for (const [name, up] of Object.entries(raw.upstreams.upstreams)) {
    up.url = urls[name] ?? `http://upstream-${name}.example:8080`;
    if (timeoutMs !== undefined) up.timeout_ms = timeoutMs;
  }
  return compileConfig(raw);
}

/** The database with each query noted under the timeout of the view that ran it. */
function recordingTimeouts(db: Db): { db: Db; ranUnder: (number | undefined)[] } {
  const ranUnder: (number | undefined)[] = [];
  const view = (ms: number | undefined): Db => ({
    ...db,
    query: (sql, params) => {
      ranUnder.push(ms);
      return db.query(sql, params);
    },
    withQueryTimeout: (next) => view(next),
  });
  return { db: view(undefined), ranUnder };
}

describe('built-in upstreams this process starts', () => {
  it('starts one whose URL names the loopback, and proxies to any other address, another of this machine included', () => {
    const started = (url: string) => localUpstreamPorts(configWith({ legal: url })).map((p) => p.what);
    for (const url of ['http://127.0.0.1:18101', 'http://[::1]:18101', 'http://localhost:18101/legal'])
      expect([url, started(url)]).toEqual([url, ['upstreams.legal.url']]);
    for (const url of ['http://127.0.0.2:18101', `http://${hostname()}:18101`, 'http://legal.example:18101'])
      expect([url, started(url)]).toEqual([url, []]);
  });

  it('serves one under its URL base path, health check included, and answers a path outside it 404 unknown_endpoint', async () => {
    const port = await freePort();
    const db = await openTestPglite();
    const local = await startLocalUpstreams(
      configWith({ 'mof-catalogs': `http://127.0.0.1:${port}/mof/` }),
      db,
      silentLogger(),
    );
    try {
      const get = async (path: string) => {
        const r = await fetch(`http://127.0.0.1:${port}${path}`);
        return [path, r.status, ((await r.json()) as { code?: string }).code ?? 'ok'];
      };
      expect(local.names).toEqual(['mof-catalogs']);
      expect(await get('/mof/healthz')).toEqual(['/mof/healthz', 200, 'ok']);
      expect(await get('/mof/dmdc-business-unit-types?per_page=1')).toEqual([
        '/mof/dmdc-business-unit-types?per_page=1',
        200,
        'ok',
      ]);
      expect(await get('/dmdc-business-unit-types')).toEqual([
        '/dmdc-business-unit-types',
        404,
        'unknown_endpoint',
      ]);
      expect(await get('/mofx/healthz')).toEqual(['/mofx/healthz', 404, 'unknown_endpoint']);
    } finally {
      await local.close();
      await db.close();
    }
  });
});

describe('built-in upstreams this process starts: reloads', () => {
  it('runs its queries under the timeout_ms a reload sets, not only the one it started with', async () => {
    const port = await freePort();
    const pglite = await openTestPglite();
    const { db, ranUnder } = recordingTimeouts(pglite);
    const urls = { 'mof-catalogs': `http://127.0.0.1:${port}` };
    const local = await startLocalUpstreams(configWith(urls, 4000), db, silentLogger());
    const timeoutsOfOneCall = async () => {
      ranUnder.length = 0;
      const r = await fetch(`http://127.0.0.1:${port}/dmdc-business-unit-types?per_page=1`);
      expect(r.status).toBe(200);
      return [...new Set(ranUnder)];
    };
    try {
      expect(await timeoutsOfOneCall()).toEqual([4000]);
      local.follow(configWith(urls, 1500));
      expect(await timeoutsOfOneCall()).toEqual([1500]);
    } finally {
      await local.close();
      await pglite.close();
    }
  });
});

describe('built-in upstreams this process starts: refused', () => {
  it('refuses at start an https URL for one it would serve over plain HTTP, naming the file and key', () => {
    const read = () => localUpstreamPorts(configWith({ legal: 'https://127.0.0.1:18101' }));
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(/^upstreams\.yaml: upstreams\.legal\.url: .*use http:\/\//);
  });

  it('refuses a reload that would change the base path it serves under, or point one it did not start at the loopback', async () => {
    const port = await freePort();
    const db = await openTestPglite();
    const local = await startLocalUpstreams(
      configWith({ 'mof-catalogs': `http://127.0.0.1:${port}/mof` }),
      db,
      silentLogger(),
    );
    try {
      expect(local.movedBy(configWith({ 'mof-catalogs': `http://127.0.0.1:${port}/mof/` }))).toEqual([]);
      // legal started pointed off this machine: a reload cannot start it on the loopback.
      expect(
        local.movedBy(
          configWith({ 'mof-catalogs': `http://127.0.0.1:${port}/mof`, legal: 'http://127.0.0.1:18101' }),
        ),
      ).toEqual([
        'upstreams.yaml upstreams.legal.url: the built-in legal upstream does not run in this process (it started pointed elsewhere); a reload cannot start it on http://127.0.0.1:18101, the next start will',
      ]);
      expect(
        local.movedBy(
          configWith({ 'mof-catalogs': `http://127.0.0.1:${port}/mof`, legal: 'http://127.0.0.2:18101' }),
        ),
      ).toEqual([]);
      expect(local.movedBy(configWith({ 'mof-catalogs': `http://127.0.0.1:${port}/catalogs` }))).toEqual([
        `upstreams.yaml upstreams.mof-catalogs.url: the built-in mof-catalogs upstream of this process answers on http://127.0.0.1:${port}/mof until the next start; a reload cannot move it to http://127.0.0.1:${port}/catalogs`,
      ]);
    } finally {
      await local.close();
      await db.close();
    }
  });
});
