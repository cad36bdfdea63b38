import request from 'supertest';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';
import { capturedLog } from '../../../test/support/captured-log';
import { getWithHeaderLines } from '../../../test/support/header-lines';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const list = '/v1/legal-documents?q=luat';

describe('authenticate: happy path', () => {
  it('accepts a key in the X-Api-Key header', async () => {
    const { key } = await h.account('free');
    const res = await request(h.gw.app).get(list).set('X-Api-Key', key);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it('accepts a key as Authorization: Bearer', async () => {
    const { key } = await h.account('starter');
    const res = await request(h.gw.app).get(list).set('Authorization', `Bearer ${key}`);
    expect(res.status).toBe(200);
  });

  it('takes the key from X-Api-Key when Authorization carries another scheme, a proxy’s Basic credentials', async () => {
    const { id, key } = await h.account('free');
    const res = await request(h.gw.app)
      .get(list)
      .set('Authorization', 'Basic dXNlcjpwYXNzd29yZA==')
      .set('X-Api-Key', key);
    expect([res.status, res.body.success]).toEqual([200, true]);
    const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', key);
    expect([me.body.data.account.id, me.body.data.quota.monthly_used]).toEqual([id, 1]);
  });

  it('accepts the key headers whatever the case of their names', async () => {
    const { key } = await h.account('free');
    expect((await request(h.gw.app).get(list).set('x-API-KEY', key)).status).toBe(200);
    expect((await request(h.gw.app).get(list).set('AUTHORIZATION', `bearer ${key}`)).status).toBe(200);
  });
});

describe('authenticate: errors', () => {
  it('answers 503 search_unavailable with Retry-After, not 500, when the database cannot look the key up, and counts nothing', async () => {
    const acc = await h.account('starter');
    h.deps.keyCache.invalidateAccount(acc.id);
    const lookup = jest
      .spyOn(h.accounts, 'findByKeyHash')
      .mockRejectedValueOnce(new Error('connection refused'));
    try {
      const res = await request(h.gw.app).get(list).set('X-Api-Key', acc.key);
      expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([
        503,
        'search_unavailable',
        '5',
      ]);
      expect(res.body.message).toBe('Dịch vụ tạm thời không thể xác thực API key, vui lòng thử lại sau.');
    } finally {
      lookup.mockRestore();
    }
    const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', acc.key);
    expect([me.status, me.body.data.quota.monthly_used]).toEqual([200, 0]);
  });

  it('refuses a request without a key with 401 unauthorized', async () => {
    const res = await request(h.gw.app).get(list);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, code: 'unauthorized', message: expect.any(String) });
  });

  it('names the accepted scheme in WWW-Authenticate on every 401, and only there', async () => {
    const { key } = await h.account('free');
    for (const res of [
      await request(h.gw.app).get(list),
      await request(h.gw.app).get(list).set('X-Api-Key', 'lk_unknown'),
      await request(h.gw.app).get(`${list}&api_key=${key}`).set('X-Api-Key', key),
    ]) {
      expect([res.status, res.headers['www-authenticate']]).toEqual([401, 'Bearer']);
    }
    const ok = await request(h.gw.app).get(list).set('X-Api-Key', key);
    expect([ok.status, ok.headers['www-authenticate']]).toEqual([200, undefined]);
  });

  it('refuses an unknown key with 401', async () => {
    const res = await request(h.gw.app)
      .get(list)
      .set('X-Api-Key', 'lk_' + 'A'.repeat(43));
    expect(res.status).toBe(401);
  });

  it('refuses an expired key with 401', async () => {
    const { key } = await h.account('pro', { expiresAt: h.clock.now() - 1000 });
    expect((await request(h.gw.app).get(list).set('X-Api-Key', key)).status).toBe(401);
  });

  it('refuses a revoked key with 401', async () => {
    const acc = await h.account('pro');
    const r = await h.accounts.revokeKey(acc.keyId);
    h.deps.keyCache.invalidateKey(r!.key_hash);
    expect((await request(h.gw.app).get(list).set('X-Api-Key', acc.key)).status).toBe(401);
  });

  it('refuses a key revoked elsewhere within a second while invalidations cannot arrive, and keeps it cached while they can', async () => {
    let live = false;
    const cut = await startHarness(undefined, undefined, () => live);
    try {
      const get = (key: string) => request(cut.gw.app).get(list).set('X-Api-Key', key);
      const during = await cut.account('pro');
      expect((await get(during.key)).status).toBe(200);
      // Revoked on another replica: no message reaches this one.
      await cut.accounts.revokeKey(during.keyId);
      cut.clock.advance(1001);
      expect((await get(during.key)).status).toBe(401);

      live = true;
      const after = await cut.account('pro');
      expect((await get(after.key)).status).toBe(200);
      await cut.accounts.revokeKey(after.keyId);
      cut.clock.advance(1001);
      // Cached for the configured TTL: the invalidation message is what drops it then.
      expect((await get(after.key)).status).toBe(200);
    } finally {
      await cut.close();
    }
  });

  it('answers 403 email_unverified for an account whose e-mail is not verified', async () => {
    const { key } = await h.account('free', { verified: false });
    const res = await request(h.gw.app).get(list).set('X-Api-Key', key);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('email_unverified');
  });

  it('refuses /v1/me too while the account is locked, saying in reset_in_seconds when the lock ends', async () => {
    const acc = await h.account('free');
    await h.accounts.patchAccount(acc.id, { restricted_until: h.clock.now() + 3_600_000 });
    h.deps.keyCache.invalidateAccount(acc.id);
    for (const path of ['/v1/me', '/v1/datasets', list]) {
      const res = await request(h.gw.app).get(path).set('X-Api-Key', acc.key);
      expect([path, res.status, res.body.code, res.body.reset_in_seconds]).toEqual([
        path,
        403,
        'account_restricted',
        3600,
      ]);
    }
  });

  it('answers 403 account_restricted while the account is locked', async () => {
    const acc = await h.account('free');
    await h.accounts.patchAccount(acc.id, { restricted_until: h.clock.now() + 60_000 });
    const res = await request(h.gw.app).get(list).set('X-Api-Key', acc.key);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('account_restricted');
  });
});

describe('authenticate: security', () => {
  it('rejects a key in the query string even when a header key is present', async () => {
    const { key } = await h.account('free');
    const res = await request(h.gw.app).get(`${list}&api_key=${key}`).set('X-Api-Key', key);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
    expect(res.body.message).toMatch(/header/i);
  });

  it('rejects a key in the query string on the documentation routes too, which need no key', async () => {
    const { key } = await h.account('free');
    for (const path of [
      `/v1/openapi.json?api_key=${key}`,
      `/docs?x=${key}`,
      `/docs/swagger-ui.css?k=${key}`,
    ]) {
      const res = await request(h.gw.app).get(path);
      expect([path, res.status, res.body.code]).toEqual([path, 401, 'unauthorized']);
      expect(res.body.message).toMatch(/header/i);
    }
    expect((await request(h.gw.app).get('/v1/openapi.json?lang=vi')).status).toBe(200);
  });

  it('rejects a key in the query string under any parameter name', async () => {
    const { key } = await h.account('free');
    for (const path of [`${list}&foo=${key}`, `/v1/me?k=${key}`, `/v1/legal-documents?q=${key}`]) {
      const res = await request(h.gw.app).get(path).set('X-Api-Key', key);
      expect([path, res.status, res.body.code]).toEqual([path, 401, 'unauthorized']);
      expect(res.body.message).toMatch(/header/i);
    }
  });

  it('rejects a key wrapped in other text in the query string, or used as a parameter name', async () => {
    const { key } = await h.account('free');
    for (const path of [
      `${list}&auth=Bearer%20${key}`,
      `${list}&x=${key}%20`,
      `${list}&keys=${key},${key}`,
      `${list}&${key}=1`,
    ]) {
      const res = await request(h.gw.app).get(path).set('X-Api-Key', key);
      expect([path, res.status, res.body.code]).toEqual([path, 401, 'unauthorized']);
    }
    // A longer run of the same characters is not a key: a search for it is served.
    const longer = await request(h.gw.app).get(`/v1/legal-documents?q=${key}A`).set('X-Api-Key', key);
    expect(longer.status).toBe(200);
  });

  it('rejects a key in the query string behind a malformed parameter, on lists and details alike', async () => {
    const { key } = await h.account('free');
    for (const path of [
      `/v1/legal-documents?q=%ZZ&api_key=${key}`,
      `/v1/legal-documents/vb_1?a=%ZZ&api_key=${key}`,
      `/v1/legal-documents/vb_1?a=%00&x=1&API_KEY=${key}`,
      `/v1/legal-documents/vb_1?api_key=%ZZ${key}`,
    ]) {
      const res = await request(h.gw.app).get(path).set('X-Api-Key', key);
      expect([path, res.status, res.body.code]).toEqual([path, 401, 'unauthorized']);
    }
  });

  it('refuses a key sent where a record id goes with 401, counts nothing, and keeps it out of the access log', async () => {
    const { logger, lines } = capturedLog();
    const logged = await startHarness(undefined, undefined, undefined, logger);
    try {
      const { key } = await logged.account('starter');
      const res = await request(logged.gw.app).get(`/v1/legal-documents/${key}`).set('X-Api-Key', key);
      expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
      expect(res.body.message).toMatch(/đường dẫn/);
      const me = await request(logged.gw.app).get('/v1/me').set('X-Api-Key', key);
      expect(me.body.data.quota).toMatchObject({ daily_used: 0, monthly_used: 0 });
      const access = lines.filter((l) => l.msg === 'request');
      expect(access.length).toBe(2);
      expect(JSON.stringify(lines)).not.toContain(key);
      expect(access[0]).toMatchObject({ status: 401, id: '[api key]' });
      // With a key in the query string too, the id is still replaced before the access line.
      const both = await request(logged.gw.app).get(`/v1/legal-documents/${key}?api_key=${key}`);
      expect(both.status).toBe(401);
      expect(lines.filter((l) => l.msg === 'request').at(-1)).toMatchObject({ status: 401, id: '[api key]' });
      expect(JSON.stringify(lines)).not.toContain(key);
    } finally {
      await logged.close();
    }
  });

  it('does not take an X-Request-Id that holds a key: answers, logs and forwards its own', async () => {
    const { key } = await h.account('free');
    h.stub.seen.length = 0;
    const res = await request(h.gw.app).get(list).set('X-Api-Key', key).set('X-Request-Id', key);
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/\S/);
    expect(res.headers['x-request-id']).not.toContain(key);
    expect(JSON.stringify(h.stub.seen.at(-1)!.headers)).not.toContain(key);
    // A sane id of its own is still taken.
    const own = await request(h.gw.app)
      .get(list)
      .set('X-Api-Key', key)
      .set('X-Request-Id', 'order-42.retry-1');
    expect(own.headers['x-request-id']).toBe('order-42.retry-1');
  });

  it('never forwards the caller key upstream, but an identity assertion instead', async () => {
    const { key } = await h.account('free');
    h.stub.seen.length = 0;
    await request(h.gw.app).get(list).set('X-Api-Key', key).set('Cookie', 'a=b');
    const seen = h.stub.seen.at(-1)!;
    expect(JSON.stringify(seen.headers)).not.toContain(key);
    expect(seen.headers['x-api-key']).toBeUndefined();
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers.authorization).toMatch(/^Bearer ey/);
  });

  it('refuses two different keys on one request', async () => {
    const a = await h.account('free');
    const b = await h.account('free');
    const res = await request(h.gw.app)
      .get(list)
      .set('X-Api-Key', a.key)
      .set('Authorization', `Bearer ${b.key}`);
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/^Chỉ gửi một API key/);
  });

  it('says what is wrong with an Authorization header that is not Bearer <key>', async () => {
    const a = await h.account('free');
    for (const value of [`Basic ${a.key}`, a.key, `Bearer ${a.key} extra`, 'Basic dXNlcjpwYXNzd29yZA==']) {
      const res = await request(h.gw.app).get(list).set('Authorization', value);
      expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
      expect(res.body.message).toBe('Header Authorization phải có dạng: Bearer <API_KEY>.');
    }
  });

  it('refuses an Authorization that says Bearer or holds a key but is malformed, even beside a good X-Api-Key', async () => {
    const a = await h.account('free');
    const b = await h.account('free');
    for (const value of [
      `Basic ${a.key}`,
      b.key,
      `Token ${b.key}`,
      // curl -u key: and HTTP clients' user/password put the key in base64: another key, then the same.
      `Basic ${Buffer.from(`${b.key}:`).toString('base64')}`,
      `basic ${Buffer.from(`${a.key}:x`).toString('base64')}`,
      `Bearer ${a.key} extra`,
      'Bearer',
      'bearer ',
    ]) {
      const res = await request(h.gw.app).get(list).set('Authorization', value).set('X-Api-Key', a.key);
      expect([value, res.status, res.body.code]).toEqual([value, 401, 'unauthorized']);
      expect(res.body.message).toBe('Header Authorization phải có dạng: Bearer <API_KEY>.');
    }
    const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', a.key);
    expect(me.body.data.quota.monthly_used).toBe(0);
  });

  it.each([
    ['X-Api-Key', (k: string) => k],
    ['Authorization', (k: string) => `Bearer ${k}`],
  ])('refuses %s sent on two lines rather than pick one key and charge it', async (name, value) => {
    const a = await h.account('free');
    const b = await h.account('free');
    for (const keys of [
      [a.key, b.key],
      [a.key, a.key],
    ]) {
      const res = await getWithHeaderLines(h.gw.app, list, { [name]: keys.map(value) });
      expect([res.status, res.body.code]).toEqual([401, 'unauthorized']);
      expect(res.body.message).toMatch(/^Chỉ gửi một API key/);
    }
    const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', a.key);
    expect(me.body.data.quota.monthly_used).toBe(0);
  });
});
