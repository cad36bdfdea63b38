import type { RequestListener } from 'node:http';
import { Counter, Registry } from 'prom-client';
import request from 'supertest';
import type { IdentitySigner } from '../gateway/identity-signer';
import { OPS_PATHS, createOpsRoutes } from './ops-routes';
import type { OpsDeps, ReadinessCheck } from './ops-routes';

const identity: IdentitySigner = {
  authorization: () => 'Bearer token',
  jwks: () => ({ keys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'k1' }] }),
};

/** The admin port's listener as start-product builds it: the ops routes first, then the admin API. */
function adminListener(overrides: Partial<OpsDeps> = {}, checks: ReadinessCheck[] = []): RequestListener {
  const registry = new Registry();
  new Counter({ name: 'ops_test_total', help: 'A counter.', registers: [registry] }).inc(3);
  const ops = createOpsRoutes({ registry, identity, readiness: checks, ...overrides });
  return (req, res) => {
    if (!ops(req, res)) {
      res.writeHead(404, ['Content-Type', 'text/plain']);
      res.end(`admin api: ${req.method} ${req.url}`);
    }
  };
}

const up = (name: string): ReadinessCheck => ({ name, check: () => Promise.resolve(true) });

describe('ops routes: what probes and scrapes get', () => {
  it('answers /healthz with ok as JSON', async () => {
    const r = await request(adminListener()).get('/healthz').expect(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.body).toEqual({ status: 'ok' });
  });

  it('serves the registry as Prometheus text on /metrics', async () => {
    const r = await request(adminListener()).get('/metrics').expect(200);
    expect(r.headers['content-type']).toBe(new Registry().contentType);
    expect(r.text).toContain('ops_test_total 3');
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.text));
  });

  it('serves the text a cluster worker gathers when one is given', async () => {
    const r = await request(adminListener({ metricsText: () => Promise.resolve('all_workers 2\n') }))
      .get('/metrics')
      .expect(200);
    expect(r.text).toBe('all_workers 2\n');
  });

  it('says ready with every check when all pass', async () => {
    const r = await request(adminListener({}, [up('config'), up('counters')]))
      .get('/readyz')
      .expect(200);
    expect(r.body).toEqual({ status: 'ready', checks: { config: true, counters: true } });
  });

  it('stays ready when only a check that does not gate fails, and reports it', async () => {
    const upstreams: ReadinessCheck = {
      name: 'upstreams',
      check: () => Promise.resolve(false),
      gates: () => false,
    };
    const r = await request(adminListener({}, [up('config'), upstreams]))
      .get('/readyz')
      .expect(200);
    expect(r.body).toEqual({ status: 'ready', checks: { config: true, upstreams: false } });
  });

  it('serves the JWKS upstreams verify assertions with', async () => {
    const r = await request(adminListener()).get('/.well-known/jwks.json').expect(200);
    expect(r.body).toEqual(identity.jwks());
  });

  it('matches the paths as Express did: any case, a trailing slash, a query string', async () => {
    const app = adminListener();
    await request(app).get('/HEALTHZ').expect(200);
    await request(app).get('/healthz/').expect(200);
    await request(app).get('/metrics?x=1').expect(200);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const r = await request(adminListener()).head('/healthz').expect(200);
    expect(r.headers['content-length']).toBe(String(JSON.stringify({ status: 'ok' }).length));
    expect(r.text).toBeUndefined();
  });
});

describe('ops routes: headers', () => {
  it('marks every answer nosniff, as every response of the API is (DESIGN §2)', async () => {
    const failing: ReadinessCheck = { name: 'db', check: () => Promise.resolve(false) };
    const app = adminListener({}, [failing]);
    for (const path of OPS_PATHS)
      expect([path, (await request(app).get(path)).headers['x-content-type-options']]).toEqual([
        path,
        'nosniff',
      ]);
  });
});

describe('ops routes: failures', () => {
  it('says not ready when a check that gates only while it is told to fails', async () => {
    let gating = true;
    const counters: ReadinessCheck = {
      name: 'counters',
      check: () => Promise.resolve(false),
      gates: () => gating,
    };
    const app = adminListener({}, [counters]);
    expect((await request(app).get('/readyz').expect(503)).body.status).toBe('not_ready');
    gating = false;
    expect((await request(app).get('/readyz').expect(200)).body.checks).toEqual({ counters: false });
  });

  it('says not ready, with the failing check, when a check fails or throws', async () => {
    const down: ReadinessCheck = { name: 'database', check: () => Promise.reject(new Error('gone')) };
    const r = await request(adminListener({}, [up('config'), down]))
      .get('/readyz')
      .expect(503);
    expect(r.body).toEqual({ status: 'not_ready', checks: { config: true, database: false } });
  });

  it('answers in time when a check hangs (a black-holed database), counting it as failed', async () => {
    const hung: ReadinessCheck = { name: 'database', check: () => new Promise<boolean>(() => undefined) };
    const started = Date.now();
    const r = await request(adminListener({ checkTimeoutMs: 100 }, [up('config'), hung]))
      .get('/readyz')
      .expect(503);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(r.body).toEqual({ status: 'not_ready', checks: { config: true, database: false } });
  });

  it('answers 503 in plain text when the metrics cannot be gathered', async () => {
    const r = await request(adminListener({ metricsText: () => Promise.reject(new Error('worker gone')) }))
      .get('/metrics')
      .expect(503);
    expect(r.text).toBe('metrics unavailable: worker gone\n');
  });
});

describe('ops routes: everything else goes to the admin API', () => {
  it('leaves other paths, and other methods on these paths, to the next listener', async () => {
    const app = adminListener();
    expect((await request(app).get('/admin/accounts').expect(404)).text).toBe(
      'admin api: GET /admin/accounts',
    );
    expect((await request(app).post('/metrics').expect(404)).text).toBe('admin api: POST /metrics');
    expect((await request(app).get('/metricsx').expect(404)).text).toBe('admin api: GET /metricsx');
    expect((await request(app).get('/constructor').expect(404)).text).toBe('admin api: GET /constructor');
  });
});
