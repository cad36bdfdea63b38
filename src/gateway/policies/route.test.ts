import { createServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
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

/** Runs `body` with a function that writes raw bytes to the gateway on a real server and returns its answer. */
async function onRawServer(body: (send: (head: string) => Promise<string>) => Promise<void>): Promise<void> {
  const server = createServer({ requireHostHeader: false }, h.gw.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const send = (head: string) =>
    new Promise<string>((resolve, reject) => {
      let got = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(head));
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (got += c));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
    });
  try {
    await body(send);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('route: happy path', () => {
  it('routes two-segment dataset paths such as catalogs/agencies', async () => {
    const res = await request(h.gw.app).get('/v1/catalogs/agencies?q=bo').set('X-Api-Key', key);
    expect(res.status).toBe(200);
    expect(h.stub.seen.at(-1)!.path).toBe('/catalogs/agencies');
  });
});

describe('route: errors', () => {
  it.each([
    '/v1/legal-documents/..',
    '/v1/legal-documents/%2e%2e',
    '/v1/legal-documents/.',
    '/v1/legal-documents/vb_1/..',
  ])(
    'answers a dot segment (%s) as a mistyped endpoint: 404 not_found before authentication, which costs nothing',
    async (path) => {
      const res = await request(h.gw.app).get(path).set('X-Api-Key', key);
      expect([res.status, res.body.code, res.headers['x-quota-remaining']]).toEqual([
        404,
        'not_found',
        undefined,
      ]);
    },
  );

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

  it.each(['/v1/legal-documents/%zz', '/v1/legal-documents/vb_%E0%A4', '/v1/le%gal-documents'])(
    'answers a path that cannot be percent-decoded (%s) with 422 invalid_request, not counted',
    async (path) => {
      const acc = await h.account('pro');
      const res = await request(h.gw.app).get(path).set('X-Api-Key', acc.key);
      expect([res.status, res.body.code]).toEqual([422, 'invalid_request']);
      expect(res.body.message).toContain('percent-encoding');
      const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', acc.key);
      expect(me.body.data.quota.monthly_used).toBe(0);
    },
  );

  it('answers an HTTP/1.1 request without Host with 422 in the envelope, and serves HTTP/1.0 without it', async () => {
    await onRawServer(async (send) => {
      const v11 = await send(`GET /v1/me HTTP/1.1\r\nX-Api-Key: ${key}\r\nConnection: close\r\n\r\n`);
      expect(v11).toMatch(/^HTTP\/1\.1 422 /);
      expect(v11).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
      expect(JSON.parse(v11.slice(v11.indexOf('\r\n\r\n') + 4))).toEqual({
        success: false,
        code: 'invalid_request',
        message: 'Yêu cầu HTTP/1.1 thiếu tiêu đề Host.',
      });
      const v10 = await send(`GET /v1/me HTTP/1.0\r\nX-Api-Key: ${key}\r\n\r\n`);
      expect(v10).toMatch(/^HTTP\/1\.1 200 /);
    });
  });

  it('serves an absolute-form request target (GET http://host/v1/...) as its path, as RFC 9112 §3.2.2 requires', async () => {
    await onRawServer(async (send) => {
      const head = (target: string) =>
        `GET ${target} HTTP/1.1\r\nHost: api.example\r\nX-Api-Key: ${key}\r\nConnection: close\r\n\r\n`;
      const me = await send(head('http://api.example/v1/me'));
      expect(me).toMatch(/^HTTP\/1\.1 200 /);
      const list = await send(head('HTTPS://api.example:443/v1/legal-documents?q=luat&per_page=3'));
      expect(list).toMatch(/^HTTP\/1\.1 200 /);
      expect(JSON.parse(list.slice(list.indexOf('\r\n\r\n') + 4)).meta.per_page).toBe(3);
      expect(await send(head('http://api.example/v2/me'))).toMatch(/^HTTP\/1\.1 404 /);
    });
  });

  it("answers a raw '#' in the request target with 422 invalid_request that costs nothing, on lists and details", async () => {
    const acc = await h.account('pro');
    await onRawServer(async (send) => {
      for (const target of ['/v1/legal-documents?q=luat&per_page=1#frag', '/v1/legal-documents/vb_1#x']) {
        const got = await send(
          `GET ${target} HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${acc.key}\r\nConnection: close\r\n\r\n`,
        );
        expect(got).toMatch(/^HTTP\/1\.1 422 /);
        expect(JSON.parse(got.slice(got.indexOf('\r\n\r\n') + 4))).toEqual({
          success: false,
          code: 'invalid_request',
          message: "Đường dẫn yêu cầu không được chứa '#': phần fragment của URL không gửi lên máy chủ.",
        });
      }
    });
    const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', acc.key);
    expect(me.body.data.quota.monthly_used).toBe(0);
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
