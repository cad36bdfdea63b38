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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request id: happy path', () => {
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
});

describe('request id: security', () => {
  it.each([
    ['too long', 'a'.repeat(129)],
    ['with a header-splitting attempt', 'abc%0d%0aSet-Cookie:x=1'],
    ['with characters outside the safe set', 'id<script>'],
  ])(
    "does not echo an incoming id %s: the caller gets one of the gateway's, and so does the upstream",
    async (_what, sent) => {
      const res = await request(h.gw.app)
        .get('/v1/legal-documents?q=luat')
        .set('X-Api-Key', key)
        .set('X-Request-Id', sent);
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(h.stub.seen.at(-1)!.headers['x-request-id']).toBe(res.headers['x-request-id']);
    },
  );

  it('gives each request an id of its own when none is sent', async () => {
    const a = await request(h.gw.app).get('/v1/legal-documents?q=luat').set('X-Api-Key', key);
    const b = await request(h.gw.app).get('/v1/legal-documents?q=luat').set('X-Api-Key', key);
    expect(a.headers['x-request-id']).toMatch(UUID);
    expect(b.headers['x-request-id']).not.toBe(a.headers['x-request-id']);
  });
});
