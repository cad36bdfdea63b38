import type { RequestListener } from 'node:http';
import { Registry } from 'prom-client';
import request from 'supertest';
import type { IdentitySigner } from '../gateway/identity-signer';
import { createOpsRoutes } from '../observability/ops-routes';
import { readinessChecks } from './readiness-checks';
import type { ReadinessSources } from './readiness-checks';

const identity: IdentitySigner = { authorization: () => 'Bearer token', jwks: () => ({ keys: [] }) };

/** A replica's sources, all well unless a test says otherwise. */
function sources(overrides: Partial<ReadinessSources> = {}): ReadinessSources {
  return {
    accepting: () => true,
    configCurrent: () => true,
    database: { query: <R>() => Promise.resolve({ rows: [{ ok: 1 } as R] }) },
    counters: () => Promise.resolve(true),
    countersReached: () => true,
    failClosed: false,
    upstreamsUp: () => true,
    ...overrides,
  };
}

function admin(src: ReadinessSources): RequestListener {
  const ops = createOpsRoutes({ registry: new Registry(), identity, readiness: readinessChecks(src) });
  return (req, res) => {
    if (!ops(req, res)) res.writeHead(404).end();
  };
}

const ready = (src: ReadinessSources) => request(admin(src)).get('/readyz');

describe('readiness checks: when a replica takes traffic', () => {
  it('is ready with every check named when all pass', async () => {
    const r = await ready(sources()).expect(200);
    expect(r.body).toEqual({
      status: 'ready',
      checks: { accepting: true, config: true, database: true, counters: true, upstreams: true },
    });
  });

  it('stays ready when the config on disk was refused or an upstream is down, and says so', async () => {
    const r = await ready(sources({ configCurrent: () => false, upstreamsUp: () => false })).expect(200);
    expect(r.body.checks).toMatchObject({ config: false, upstreams: false });
  });

  it('stays ready while the database does not answer, and says so', async () => {
    const r = await ready(sources({ database: { query: () => Promise.reject(new Error('down')) } })).expect(
      200,
    );
    expect(r.body.checks.database).toBe(false);
  });

  it('stays ready under store_failure open when counters that once answered stop answering', async () => {
    const r = await ready(sources({ counters: () => Promise.resolve(false) })).expect(200);
    expect(r.body.checks.counters).toBe(false);
  });
});

describe('readiness checks: when a replica is kept out', () => {
  it('is unready from SIGTERM on', async () => {
    await ready(sources({ accepting: () => false })).expect(503);
  });

  it('is unready before the shared counters first answer, even under store_failure open', async () => {
    const src = sources({ counters: () => Promise.resolve(false), countersReached: () => false });
    await ready(src).expect(503);
  });

  it('is unready under store_failure closed whenever the counters do not answer', async () => {
    await ready(sources({ counters: () => Promise.resolve(false), failClosed: true })).expect(503);
  });
});
