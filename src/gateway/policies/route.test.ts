import request from 'supertest';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';

let h: Harness;
let key: string;
beforeAll(async () => {
  h = await startHarness();
  key = (await h.account('pro')).key;
});
afterAll(() => h.close());

describe('route and request id: happy path', () => {
  it('echoes a sane X-Request-Id and forwards it upstream', async () => {
    const res = await request(h.gw.app)
      .get('/v1/legal-documents?q=luat')
      .set('X-Api-Key', key)
      .set('X-Request-Id', 'abc-123');
    expect(res.headers['x-request-id']).toBe('abc-123');
    expect(h.stub.seen.at(-1)!.headers['x-request-id']).toBe('abc-123');
  });

  it('makes a request id when the incoming one is not sane, on errors too', async () => {
    const res = await request(h.gw.app).get('/nowhere').set('X-Request-Id', 'bad id with spaces');
    expect(res.status).toBe(404);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('puts a request id on the documentation routes too', async () => {
    const res = await request(h.gw.app).get('/v1/openapi.json').set('X-Request-Id', 'docs-1');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('docs-1');
    expect((await request(h.gw.app).get('/docs')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('routes two-segment dataset paths such as catalogs/agencies', async () => {
    const res = await request(h.gw.app).get('/v1/catalogs/agencies?q=bo').set('X-Api-Key', key);
    expect(res.status).toBe(200);
    expect(h.stub.seen.at(-1)!.path).toBe('/catalogs/agencies');
  });
});

describe('route: errors', () => {
  it('answers an unknown dataset with 404 not_found before authentication', async () => {
    const res = await request(h.gw.app).get('/v1/unknown-things');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, code: 'not_found', message: expect.any(String) });
  });

  it('answers a method other than GET with 405 and an envelope', async () => {
    const res = await request(h.gw.app).post('/v1/legal-documents').set('X-Api-Key', key).send({ a: 1 });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.body.success).toBe(false);
  });

  it.each([
    ['times out', '/v1/legal-documents/vb_slow'],
    ['answers 500', '/v1/legal-documents/vb_boom'],
    ['answers a list that is not JSON', '/v1/legal-documents?q=garbage'],
    ['answers a list without data and total', '/v1/legal-documents?q=shapeless'],
    ['answers a record without data', '/v1/legal-documents/vb_shapeless'],
  ])('tells the caller when to retry, whichever way the upstream fails: it %s', async (_how, path) => {
    const acc = await h.account('pro');
    const res = await request(h.gw.app).get(path).set('X-Api-Key', acc.key);
    expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([503, 'search_unavailable', '5']);
    const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', acc.key);
    expect(me.body.data.quota.monthly_used).toBe(0);
  });
});

describe('route: security', () => {
  it('sends no CORS headers and marks authenticated answers private', async () => {
    const res = await request(h.gw.app)
      .get('/v1/legal-documents?q=luat')
      .set('X-Api-Key', key)
      .set('Origin', 'https://evil.example');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('private, no-store');
  });
});
