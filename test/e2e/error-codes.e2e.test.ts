import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  adminCall,
  apiGet,
  configWithFreePorts,
  freePort,
  newAccount,
  startProductProcess,
} from './product-process';
import type { ProductProcess } from './product-process';
import { ADMIN_SECRET } from './product-process';
import { signAdminToken } from '../../src/runtime/admin-secret';
import { foldText } from '../../src/upstream-kit/normalize-keyword';
import { eventually } from '../support/private-redis';

// The embedded product in its own process (PGlite, in-memory counters, built-in upstreams), with
// the directory upstream pointed at an address where nothing answers.
let p: ProductProcess;
let configDir: string;
beforeAll(async () => {
  configDir = await configWithFreePorts((docs) =>
    docs.upstreams.setIn(['upstreams', 'directory', 'url'], 'http://127.0.0.2:9'),
  );
  p = await startProductProcess({ CONFIG_DIR: configDir, ADMIN_JWT_SECRET: ADMIN_SECRET });
}, 180_000);
afterAll(async () => {
  await p?.stop();
});

/** Writes raw bytes to the port of `base` on a new connection; everything the server sent before it closed. */
function exchange(base: string, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(base);
    let got = '';
    const socket = connect(Number(port), hostname, () => socket.write(raw));
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (got += c));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

describe('every error code the gateway owns, through a real process', () => {
  it('401 unauthorized without a key, with a wrong key, and with a key in the query string', async () => {
    const acc = await newAccount(p, 'free');
    for (const r of [
      await apiGet(p, '/v1/legal-documents?q=luat'),
      await apiGet(p, '/v1/legal-documents?q=luat', 'lk_' + 'x'.repeat(43)),
      await apiGet(p, `/v1/legal-documents?q=luat&api_key=${acc.key}`, acc.key),
    ]) {
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ success: false, code: 'unauthorized' });
    }
  });

  it('401 for a revoked key, within a second of the admin call', async () => {
    const acc = await newAccount(p, 'free');
    expect((await apiGet(p, '/v1/legal-documents?q=luat', acc.key)).status).toBe(200);
    expect((await adminCall(p, 'DELETE', `/admin/keys/${acc.keyId}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await apiGet(p, '/v1/legal-documents?q=luat', acc.key)).status).toBe(401);
  });

  it('403 plan_required, email_unverified, account_restricted and ip_not_allowed', async () => {
    const free = await newAccount(p, 'free');
    const relations = await apiGet(p, '/v1/legal-documents/vb_x1/relations', free.key);
    expect(relations.status).toBe(403);
    expect(relations.body).toMatchObject({ code: 'plan_required', upgrade_url: expect.any(String) });

    const unverified = await newAccount(p, 'free', { email_verified: false });
    expect((await apiGet(p, '/v1/legal-documents?q=luat', unverified.key)).body.code).toBe(
      'email_unverified',
    );

    const locked = await newAccount(p, 'starter');
    await adminCall(p, 'PATCH', `/admin/accounts/${locked.id}`, {
      restricted_until: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await new Promise((r) => setTimeout(r, 1000));
    const res = await apiGet(p, '/v1/legal-documents?q=luat', locked.key);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('account_restricted');
    await adminCall(p, 'PATCH', `/admin/accounts/${locked.id}`, { restricted_until: null });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await apiGet(p, '/v1/legal-documents?q=luat', locked.key)).status).toBe(200);

    const fenced = await newAccount(p, 'starter', { ip_allowlist: ['203.0.113.0/24'] });
    const outside = await apiGet(p, '/v1/legal-documents?q=luat', fenced.key);
    expect(outside.status).toBe(403);
    expect(outside.body.code).toBe('ip_not_allowed');
  });

  it('the admin API refuses an IP allowlist for a Free account', async () => {
    const acc = await adminCall(p, 'POST', '/admin/accounts', {
      email: 'fence-free@example.vn',
      plan: 'free',
      email_verified: true,
    });
    const key = await adminCall(p, 'POST', `/admin/accounts/${String(acc.json.id)}/keys`, {
      ip_allowlist: ['10.0.0.0/8'],
    });
    expect(key.status).toBe(403);
    expect(key.json.code).toBe('plan_required');
  });

  it('the admin API answers a request without a valid admin token with 401 naming the Bearer scheme', async () => {
    for (const authorization of [undefined, 'Bearer not-a-jwt']) {
      const r = await fetch(`${p.admin}/admin/accounts/acc_x`, {
        headers: authorization ? { authorization } : {},
      });
      expect([r.status, r.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
      expect(((await r.json()) as { code: string }).code).toBe('unauthorized');
    }
  });

  it('the admin API answers a new key with Cache-Control: no-store, so no cache keeps it', async () => {
    const acc = await newAccount(p, 'starter');
    const r = await fetch(`${p.admin}/admin/accounts/${acc.id}/keys`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await signAdminToken(ADMIN_SECRET, Date.now(), 600)}`,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(String(((await r.json()) as { key: string }).key)).toMatch(/^lk_/);
  });

  it('the admin API writes one line per request, refused ones too: who, what, how it ended, never the body or a key', async () => {
    const auditLines = (): Record<string, unknown>[] =>
      p
        .output()
        .split('\n')
        .filter((l) => l.includes('"msg":"admin request"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const token = await signAdminToken(ADMIN_SECRET, Date.now(), 600, 'billing-audit-test');
    const email = `audit-${Date.now()}@example.vn`;
    const call = (method: string, path: string, body?: string, auth = true) =>
      fetch(`${p.admin}${path}`, {
        method,
        headers: {
          ...(auth ? { authorization: `Bearer ${token}` } : {}),
          'content-type': 'application/json',
        },
        body,
      });
    const acc = (await (
      await call('POST', '/admin/accounts', JSON.stringify({ email, plan: 'pro' }))
    ).json()) as {
      id: string;
    };
    const created = await call('POST', `/admin/accounts/${acc.id}/keys?note=x`, '{}');
    const secret = ((await created.json()) as { key: string }).key;
    await call('PATCH', `/admin/accounts/${acc.id}`, JSON.stringify({ plan: 'nope' }));
    await call('DELETE', `/admin/keys/key_audit`, undefined, false);
    // This test's own: other tests' lines may still be on their way out (the output is batched).
    const own = () =>
      auditLines().filter(
        (l) => l.admin_subject === 'billing-audit-test' || l.path === '/admin/keys/key_audit',
      );
    await eventually(() => own().length >= 4);
    const lines = own();
    expect(lines.map((l) => [l.admin_subject, l.method, l.path, l.status, l.completed])).toEqual([
      ['billing-audit-test', 'POST', '/admin/accounts', 201, true],
      ['billing-audit-test', 'POST', `/admin/accounts/${acc.id}/keys`, 201, true],
      ['billing-audit-test', 'PATCH', `/admin/accounts/${acc.id}`, 422, true],
      [null, 'DELETE', '/admin/keys/key_audit', 401, true],
    ]);
    for (const l of lines) expect(l.ms).toEqual(expect.any(Number));
    expect(p.output()).not.toContain(secret);
    expect(p.output()).not.toContain(email);
  });

  it('the admin API names what was wrong with a request it cannot read: a bad path, bad JSON, a body too large', async () => {
    const token = await signAdminToken(ADMIN_SECRET, Date.now(), 600);
    const call = async (method: string, path: string, body?: string) => {
      const r = await fetch(`${p.admin}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      return [r.status, ((await r.json()) as { code: string; message: string }).message] as const;
    };
    expect(await call('GET', '/admin/accounts/%ff')).toEqual([
      422,
      'Đường dẫn chứa mã phần trăm không hợp lệ.',
    ]);
    expect(await call('DELETE', '/admin/keys/%ff')).toEqual([
      422,
      'Đường dẫn chứa mã phần trăm không hợp lệ.',
    ]);
    // NUL: no id holds one, and no text of the database can (the query failed with a 500).
    expect(await call('GET', '/admin/accounts/acc_%00')).toEqual([404, 'Không tìm thấy tài khoản.']);
    expect(await call('PATCH', '/admin/accounts/acc_%00', '{"plan":"free"}')).toEqual([
      404,
      'Không tìm thấy tài khoản.',
    ]);
    expect(await call('POST', '/admin/accounts/acc_%00/credits', '{"amount":5,"reference":"r"}')).toEqual([
      404,
      'Không tìm thấy tài khoản.',
    ]);
    expect(await call('DELETE', '/admin/keys/key_%00')).toEqual([404, 'Không tìm thấy key.']);
    const acc = await newAccount(p, 'starter');
    expect(
      await call('POST', `/admin/accounts/${acc.id}/credits`, '{"amount":5,"reference":"a\\u0000b"}'),
    ).toEqual([422, 'reference: text without NUL characters or unpaired surrogates']);
    // Two references differing only in a lone surrogate half would be stored as one.
    expect(
      await call('POST', `/admin/accounts/${acc.id}/credits`, '{"amount":5,"reference":"x\\ud800"}'),
    ).toEqual([422, 'reference: text without NUL characters or unpaired surrogates']);
    expect(
      await call('POST', `/admin/accounts/${acc.id}/credits`, '{"amount":5,"reference":" \\t\\u00a0"}'),
    ).toEqual([422, 'reference: a reference with a visible character, not only spaces']);
    expect(
      (
        await call('POST', `/admin/accounts/${acc.id}/credits`, '{"amount":5,"reference":"x\\ud83d\\ude00"}')
      )[0],
    ).toBe(200);
    expect(await call('POST', '/admin/accounts', '{"email":')).toEqual([422, 'Nội dung JSON không hợp lệ.']);
    const big = JSON.stringify({ email: 'big@example.vn', plan: 'free', note: 'x'.repeat(2_000_000) });
    expect(await call('POST', '/admin/accounts', big)).toEqual([413, 'Nội dung yêu cầu vượt quá 64kb.']);
  });

  it('the admin API refuses an e-mail address longer than RFC 5321 allows, and takes one at the limits', async () => {
    const create = (email: string) => adminCall(p, 'POST', '/admin/accounts', { email, plan: 'free' });
    const long = await create(`${'a'.repeat(65)}@example.vn`);
    expect([long.status, long.json.code, long.json.message]).toEqual([
      422,
      'invalid_request',
      expect.stringContaining('email'),
    ]);
    // 255 characters in all, each label of the domain within its own 63.
    expect((await create(`${'b'.repeat(60)}@${`${'d'.repeat(63)}.`.repeat(3)}vn`)).status).toBe(422);
    expect((await create(`${'c'.repeat(64)}@example.vn`)).status).toBe(201);
  });

  it('the admin API refuses a date-time that does not exist instead of moving it or failing, and takes RFC 3339 forms, reading one without an offset in the service zone', async () => {
    const acc = await newAccount(p, 'starter');
    const dates = [
      '0000-01-01T00:00:00Z',
      '2099-02-30T00:00:00Z',
      '2099-04-31',
      '2099-01-01T24:00:00Z',
      '9999-12-31T23:00:00-05:00', // a day that exists, in year 10000 in UTC
    ];
    for (const at of dates) {
      const locked = await adminCall(p, 'PATCH', `/admin/accounts/${acc.id}`, { restricted_until: at });
      expect([locked.status, locked.json.code, locked.json.message]).toEqual([
        422,
        'invalid_request',
        expect.stringContaining('restricted_until'),
      ]);
      const key = await adminCall(p, 'POST', `/admin/accounts/${acc.id}/keys`, { expires_at: at });
      expect([key.status, key.json.code]).toEqual([422, 'invalid_request']);
    }
    const spaced = await adminCall(p, 'POST', `/admin/accounts/${acc.id}/keys`, {
      expires_at: '2099-01-01 07:00:00+0700',
    });
    expect([spaced.status, spaced.json.expires_at]).toEqual([201, '2099-01-01T00:00:00.000Z']);
    // Without an offset, in the zone where the service's days reset (Asia/Ho_Chi_Minh), not the process's.
    const day = await adminCall(p, 'POST', `/admin/accounts/${acc.id}/keys`, { expires_at: '2099-01-01' });
    expect([day.status, day.json.expires_at]).toEqual([201, '2098-12-31T17:00:00.000Z']);
    const lock = await adminCall(p, 'PATCH', `/admin/accounts/${acc.id}`, {
      restricted_until: '2099-01-01T07:30',
    });
    expect([lock.status, lock.json.restricted_until]).toEqual([200, '2099-01-01T00:30:00.000Z']);
  });

  it('a registration retried after its answer was lost gets 409, then finds the account it made by e-mail', async () => {
    const email = `Retry.${Date.now()}@Example.vn`;
    const made = await adminCall(p, 'POST', '/admin/accounts', { email, plan: 'starter' });
    const retry = await adminCall(p, 'POST', '/admin/accounts', { email, plan: 'starter' });
    expect([made.status, retry.status, retry.json.code]).toEqual([201, 409, 'conflict']);
    const found = await adminCall(
      p,
      'GET',
      `/admin/accounts?email=${encodeURIComponent(email.toLowerCase())}`,
    );
    expect([found.status, found.json]).toEqual([200, made.json]);
    const none = await adminCall(p, 'GET', '/admin/accounts?email=nobody%40example.vn');
    expect([none.status, none.json.code]).toEqual([404, 'not_found']);
    expect((await adminCall(p, 'GET', '/admin/accounts?email=a%00b')).status).toBe(404);
    for (const query of ['', '?email=', '?email=a&email=b', '?mail=a'])
      expect([query, (await adminCall(p, 'GET', `/admin/accounts${query}`)).status]).toEqual([query, 422]);
  });

  it('the admin port answers a known path (its probes and metrics too) asked with another method with 405 and the methods it takes, an unknown path with 404', async () => {
    const acc = await newAccount(p, 'starter');
    const token = await signAdminToken(ADMIN_SECRET, Date.now(), 600);
    const call = async (method: string, path: string) => {
      const r = await fetch(`${p.admin}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
      const body = (await r.json()) as { code: string };
      return [method, path, r.status, body.code, r.headers.get('allow')];
    };
    const cases: [string, string, string][] = [
      ['PUT', `/admin/accounts/${acc.id}`, 'GET, PATCH'],
      ['DELETE', `/admin/accounts/${acc.id}`, 'GET, PATCH'],
      ['PATCH', '/admin/accounts', 'GET, POST'],
      ['DELETE', `/admin/accounts/${acc.id}/keys`, 'GET, POST'],
      ['GET', `/admin/accounts/${acc.id}/credits`, 'POST'],
      ['GET', '/admin/keys/key_x', 'DELETE'],
      ['POST', '/metrics', 'GET, HEAD'],
      ['DELETE', '/healthz', 'GET, HEAD'],
      ['PUT', '/.well-known/jwks.json', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases)
      expect(await call(method, path)).toEqual([method, path, 405, 'method_not_allowed', allow]);
    expect(await call('PUT', '/admin/nothing')).toEqual(['PUT', '/admin/nothing', 404, 'not_found', null]);
  });

  it('CONNECT gets 405 in the envelope on both ports, each naming the methods it serves', async () => {
    const ask = (base: string) =>
      exchange(base, 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n');
    const pub = await ask(p.base);
    const admin = await ask(p.admin);
    expect([pub.split('\r\n')[0], /\r\nAllow: (.*)\r\n/.exec(pub)?.[1]]).toEqual([
      'HTTP/1.1 405 Method Not Allowed',
      'GET',
    ]);
    expect([admin.split('\r\n')[0], /\r\nAllow: (.*)\r\n/.exec(admin)?.[1]]).toEqual([
      'HTTP/1.1 405 Method Not Allowed',
      'GET, POST, PATCH, DELETE',
    ]);
    const body = (raw: string): unknown => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    const envelope = (message: string) => ({ success: false, code: 'method_not_allowed', message });
    expect([body(pub), body(admin)]).toEqual([
      envelope('Chỉ hỗ trợ phương thức GET.'),
      envelope('Phương thức không được hỗ trợ.'),
    ]);
  });

  it('the admin port answers an HTTP/1.1 request without Host with 422 in the envelope, and serves HTTP/1.0 without it', async () => {
    const send = (head: string) => exchange(p.admin, head);
    const refused = {
      success: false,
      code: 'invalid_request',
      message: 'Yêu cầu HTTP/1.1 thiếu tiêu đề Host.',
    };
    for (const path of ['/healthz', '/metrics', '/admin/accounts']) {
      const got = await send(`GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
      expect([path, got.split('\r\n')[0]]).toEqual([path, 'HTTP/1.1 422 Unprocessable Entity']);
      expect(JSON.parse(got.slice(got.indexOf('\r\n\r\n') + 4))).toEqual(refused);
    }
    expect((await send('GET /healthz HTTP/1.0\r\n\r\n')).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
    // Refused before its token is read, the admin request still has its audit line.
    await eventually(() => /"method":"GET","path":"\/admin\/accounts","status":422/.test(p.output()), 5000);
  });

  it('the admin API refuses an allowlist entry that would be read otherwise than it is written, and takes a mapped range of /96 or narrower', async () => {
    const acc = await newAccount(p, 'starter');
    for (const entry of [
      '010.0.0.1',
      '10.1',
      '0x0a000001',
      '10.0.0.0x1/8',
      'fe80::1%eth0',
      '::ffff:192.0.2.0/24',
      '::ffff:010.0.0.1',
    ]) {
      const key = await adminCall(p, 'POST', `/admin/accounts/${acc.id}/keys`, { ip_allowlist: [entry] });
      expect([entry, key.status, key.json.code, key.json.message]).toEqual([
        entry,
        422,
        'invalid_request',
        expect.stringContaining('ip_allowlist'),
      ]);
    }
    const mapped = await adminCall(p, 'POST', `/admin/accounts/${acc.id}/keys`, {
      ip_allowlist: ['::ffff:192.0.2.0/120', '10.0.0.1', '2001:db8::/32'],
    });
    expect([mapped.status, mapped.json.ip_allowlist]).toEqual([
      201,
      ['::ffff:192.0.2.0/120', '10.0.0.1', '2001:db8::/32'],
    ]);
  });

  it('the admin API says a body that is not JSON is not, names the bound an amount passed, and answers a purchase retried after a downgrade as a retry', async () => {
    const acc = await newAccount(p, 'starter');
    const token = await signAdminToken(ADMIN_SECRET, Date.now(), 600);
    const form = await fetch(`${p.admin}/admin/accounts/${acc.id}/credits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"amount":5,"reference":"form"}',
    });
    expect([form.status, ((await form.json()) as { message: string }).message]).toEqual([
      422,
      'Nội dung yêu cầu phải là JSON (Content-Type: application/json).',
    ]);
    const huge = await adminCall(p, 'POST', `/admin/accounts/${acc.id}/credits`, {
      amount: 1e30,
      reference: 'huge',
    });
    expect([huge.status, huge.json.message]).toEqual([
      422,
      'amount: Too big: expected number to be <=1000000000',
    ]);
    const buy = { amount: 5, reference: 'before-downgrade' };
    expect((await adminCall(p, 'POST', `/admin/accounts/${acc.id}/credits`, buy)).json.applied).toBe(true);
    expect((await adminCall(p, 'PATCH', `/admin/accounts/${acc.id}`, { plan: 'free' })).status).toBe(200);
    const retry = await adminCall(p, 'POST', `/admin/accounts/${acc.id}/credits`, buy);
    expect([retry.status, retry.json.applied, retry.json.balance, retry.json.extra_credits]).toEqual([
      200,
      false,
      5,
      5,
    ]);
    const other = await adminCall(p, 'POST', `/admin/accounts/${acc.id}/credits`, { ...buy, amount: 6 });
    expect(other.status).toBe(409);
    const fresh = await adminCall(p, 'POST', `/admin/accounts/${acc.id}/credits`, {
      amount: 5,
      reference: 'after',
    });
    expect([fresh.status, fresh.json.code]).toEqual([403, 'plan_required']);
  });

  it('refuses a reload that would point a built-in upstream of the process at another local port, and keeps serving it', async () => {
    const { key } = await newAccount(p, 'starter');
    const file = join(configDir, 'upstreams.yaml');
    const original = readFileSync(file, 'utf8');
    const legal = /legal:[\s{]*url: http:\/\/127\.0\.0\.1:(\d+)/.exec(original)!;
    // Another port, another loopback address, another scheme: nothing of the upstream there.
    for (const to of [
      'http://127.0.0.1:9',
      `http://127.0.0.2:${legal[1]}`,
      `https://127.0.0.1:${legal[1]}`,
    ]) {
      writeFileSync(file, original.replace(`http://127.0.0.1:${legal[1]}`, to));
      await eventually(() => p.output().includes(`a reload cannot move it to ${to}`), 20_000);
      expect((await apiGet(p, '/v1/legal-documents?q=luat', key)).status).toBe(200);
    }
    expect(p.output()).toContain(
      'upstreams.yaml upstreams.legal.url: the built-in legal upstream of this process answers on',
    );
    writeFileSync(file, original);
  });

  it('404 not_found for an unknown id (counted) and an unknown endpoint (not counted)', async () => {
    const acc = await newAccount(p, 'pro');
    expect((await apiGet(p, '/v1/legal-documents/vb_doesnotexist', acc.key)).status).toBe(404);
    expect((await apiGet(p, '/v1/no-such-thing', acc.key)).status).toBe(404);
    const me = await apiGet(p, '/v1/me', acc.key);
    expect((me.body.data as { quota: { monthly_used: number } }).quota.monthly_used).toBe(1);
  });

  it('422 invalid_request and page_limit', async () => {
    const acc = await newAccount(p, 'free');
    expect((await apiGet(p, '/v1/legal-documents', acc.key)).body.code).toBe('invalid_request');
    expect((await apiGet(p, '/v1/legal-documents?q=luat&issued_from=2025-02-30', acc.key)).body.code).toBe(
      'invalid_request',
    );
    const deep = await apiGet(p, '/v1/legal-documents?q=luat&page=6', acc.key);
    expect(deep.status).toBe(422);
    expect(deep.body.code).toBe('page_limit');
  });

  it('422 invalid_request in the envelope for a URL or a header longer than the HTTP parser takes, not counted', async () => {
    const acc = await newAccount(p, 'free');
    for (const r of [
      await apiGet(p, `/v1/legal-documents?q=${'a'.repeat(17_000)}`, acc.key),
      await apiGet(p, '/v1/legal-documents?q=luat', acc.key, { 'x-foo': 'b'.repeat(17_000) }),
    ]) {
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ success: false, code: 'invalid_request' });
      expect(r.headers.get('x-request-id')).toBeTruthy();
    }
    const me = await apiGet(p, '/v1/me', acc.key);
    expect((me.body.data as { quota: { monthly_used: number } }).quota.monthly_used).toBe(0);
  });

  it('503 search_unavailable when an upstream does not answer, and the call is not counted', async () => {
    const acc = await newAccount(p, 'pro');
    const res = await apiGet(p, '/v1/bailiff-offices?q=van', acc.key);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, code: 'search_unavailable' });
    const me = await apiGet(p, '/v1/me', acc.key);
    expect((me.body.data as { quota: { monthly_used: number } }).quota.monthly_used).toBe(0);
  });

  it('serves real data with the reference envelope on the embedded default', async () => {
    const acc = await newAccount(p, 'free');
    const res = await apiGet(p, '/v1/legal-documents?q=luat%20dat%20dai', acc.key);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const rows = res.body.data as { name: string }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      const name = foldText(r.name);
      for (const word of ['luat', 'dat', 'dai']) expect(name).toMatch(new RegExp(`\\b${word}`));
    }
    expect(res.body.meta).toMatchObject({
      page: 1,
      per_page: 20,
      max_page: 5,
      locked_fields: ['content_html', 'content_en_html', 'replaced_by', 'replaces'],
    });
  });
});

describe('npm run admin (the CLI over the admin API)', () => {
  // Each call is a process of its own under tsx (about a second idle): the tests of a dozen calls
  // took 22 s with the other suites running, so they get room for a machine three times slower.
  const cliRun = async (
    args: string[],
    adminUrl = p.admin,
    env: Record<string, string> = { ADMIN_JWT_SECRET: ADMIN_SECRET },
  ): Promise<{ code: number; stdout: string; stderr: string }> => {
    const { execFile } = await import('node:child_process');
    return new Promise((resolve) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/cli/admin.ts', ...args],
        { env: { PATH: process.env.PATH ?? '', ADMIN_URL: adminUrl, ...env } },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      ),
    );
  };
  const cli = async (...args: string[]): Promise<Record<string, unknown>> => {
    const { execFile } = await import('node:child_process');
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', 'src/cli/admin.ts', ...args],
        { env: { PATH: process.env.PATH ?? '', ADMIN_URL: p.admin, ADMIN_JWT_SECRET: ADMIN_SECRET } },
        (err, stdout, stderr) => (err ? reject(new Error(stderr || err.message)) : resolve(stdout)),
      ),
    );
    return JSON.parse(out) as Record<string, unknown>;
  };

  it('creates an account and a key, buys credits, locks and unlocks, all from the command line', async () => {
    const acc = await cli(
      'accounts',
      'create',
      '--email',
      'cli@example.vn',
      '--plan',
      'starter',
      '--verified',
    );
    expect(acc).toMatchObject({
      email: 'cli@example.vn',
      plan: 'starter',
      email_verified: true,
      extra_credits: 0,
      restricted_until: null,
    });
    const key = await cli('keys', 'create', String(acc.id), '--ip', '127.0.0.1/32');
    expect(String(key.key)).toMatch(/^lk_/);
    expect((await apiGet(p, '/v1/legal-documents?q=luat', String(key.key))).status).toBe(200);
    expect(
      (await cli('credits', 'add', String(acc.id), '--amount', '50', '--reference', 'inv-9')).extra_credits,
    ).toBe(50);
    expect((await cli('accounts', 'find', '--email', 'CLI@example.vn')).id).toBe(acc.id);
    expect(
      (await cli('accounts', 'update', String(acc.id), '--restricted-until', '2099-01-01T00:00:00Z'))
        .restricted_until,
    ).toBe('2099-01-01T00:00:00.000Z');
    expect((await cli('accounts', 'unlock', String(acc.id))).restricted_until).toBeNull();
    const keys = (await cli('keys', 'list', String(acc.id))) as unknown as { id: string; prefix: string }[];
    expect(keys).toHaveLength(1);
    expect(JSON.stringify(keys)).not.toContain(String(key.key));
    expect((await cli('keys', 'revoke', String(key.id))).revoked_at).toEqual(expect.any(String));
  }, 180_000);

  it('refuses mistakes with a message and a non-zero exit: ids that are paths, loose amounts, a reused reference, a dead key', async () => {
    const acc = await newAccount(p, 'starter');
    // An id is one path segment: ../../healthz must not reach another route of the admin port.
    const traversal = await cliRun(['accounts', 'get', '../../healthz']);
    expect(traversal.code).toBe(1);
    expect(traversal.stderr).toContain('404');
    for (const amount of ['0x10', '1e3', '12abc', '0', '2000000000']) {
      const r = await cliRun(['credits', 'add', acc.id, '--amount', amount, '--reference', `r-${amount}`]);
      expect([r.code, r.stderr]).toEqual([
        2,
        expect.stringContaining('--amount must be a positive whole number'),
      ]);
    }
    expect((await cliRun(['credits', 'add', acc.id, '--amount', '50', '--reference', 'inv-1'])).code).toBe(0);
    const reused = await cliRun(['credits', 'add', acc.id, '--amount', '70', '--reference', 'inv-1']);
    expect([reused.code, reused.stderr]).toEqual([1, expect.stringContaining('409')]);
    const dead = await cliRun(['keys', 'create', acc.id, '--expires-at', '2000-01-01T00:00:00Z']);
    expect([dead.code, dead.stderr]).toEqual([
      1,
      expect.stringContaining('expires_at: phải là một thời điểm trong tương lai'),
    ]);
    expect((await cliRun(['accounts', 'update', acc.id])).code).toBe(2);
    expect((await cliRun(['accounts', 'update', acc.id, '--verified', '--unverified'])).code).toBe(2);
    expect((await cliRun(['accounts', 'get', acc.id, 'extra'])).code).toBe(2);
    const created = await cliRun([
      'accounts',
      'create',
      '--email',
      'x@example.vn',
      '--plan',
      'free',
      'extra',
    ]);
    expect([created.code, created.stderr]).toEqual([2, expect.stringContaining('unexpected argument extra')]);
  }, 180_000);

  it('refuses an option given empty or to a command that does not take it, with exit 2 and no call made', async () => {
    const acc = await newAccount(p, 'starter');
    for (const [args, message] of [
      [['keys', 'create', acc.id, '--expires-at', ''], '--expires-at needs a value'],
      [['accounts', 'update', acc.id, '--plan', '', '--verified'], '--plan needs a value'],
      [['keys', 'create', acc.id, '--ip', ''], '--ip needs a value'],
      [
        ['accounts', 'unlock', acc.id, '--restricted-until', '2030-01-01T00:00:00Z'],
        '--restricted-until does not apply to accounts unlock',
      ],
      [
        ['accounts', 'create', '--email', 'o@example.vn', '--plan', 'pro', '--ip', '203.0.113.0/24'],
        '--ip does not apply to accounts create',
      ],
      [['keys', 'create', acc.id, '--plan', 'pro'], '--plan does not apply to keys create'],
    ] as const) {
      const r = await cliRun([...args]);
      expect([args.join(' '), r.code, r.stderr]).toEqual([
        args.join(' '),
        2,
        expect.stringContaining(message),
      ]);
    }
    expect((await apiGet(p, '/v1/me', acc.key)).status).toBe(200);
    const keys = await adminCall(p, 'GET', `/admin/accounts/${acc.id}/keys`);
    expect((keys.json as unknown as unknown[]).length).toBe(1);
    // An ADMIN_URL written with a trailing slash reaches the same routes.
    const slash = await cliRun(['accounts', 'get', acc.id], `${p.admin}/`);
    expect([slash.code, JSON.parse(slash.stdout || '{}').id]).toEqual([0, acc.id]);
  }, 180_000);

  it('prints its usage on --help with exit 0, and names the address it could not reach', async () => {
    const help = await cliRun(['--help']);
    expect([help.code, help.stdout]).toEqual([0, expect.stringContaining('usage: npm run admin')]);
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const down = await cliRun(['accounts', 'get', 'acc_x'], nobody);
    expect([down.code, down.stderr.trim()]).toEqual([
      1,
      `cannot reach the admin API at ${nobody}: ECONNREFUSED`,
    ]);
  }, 60_000);

  it('finds the admin port where the server does without ADMIN_URL: ADMIN_PORT, else gateway.yaml admin_port of CONFIG_DIR', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(`${tmpdir()}/lookup-cli-config-`);
    try {
      writeFileSync(join(dir, 'gateway.yaml'), `admin_port: ${p.adminPort}\n`);
      const acc = await newAccount(p, 'free');
      const viaFile = await cliRun(['accounts', 'get', acc.id], '', {
        ADMIN_JWT_SECRET: ADMIN_SECRET,
        CONFIG_DIR: dir,
      });
      const viaPort = await cliRun(['accounts', 'get', acc.id], '', {
        ADMIN_JWT_SECRET: ADMIN_SECRET,
        CONFIG_DIR: dir,
        ADMIN_PORT: String(await freePort()),
      });
      expect([viaFile.code, JSON.parse(viaFile.stdout).id]).toEqual([0, acc.id]);
      expect([viaPort.code, viaPort.stderr]).toEqual([1, expect.stringContaining('ECONNREFUSED')]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('says a secret is missing, not that the server cannot be reached, when it has none to sign with', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const empty = await mkdtemp(`${tmpdir()}/lookup-cli-`);
    try {
      const none = await cliRun(['accounts', 'get', 'acc_x'], p.admin, { DATA_DIR: empty });
      expect([none.code, none.stderr.trim()]).toEqual([
        2,
        'set ADMIN_TOKEN or ADMIN_JWT_SECRET (or run next to the embedded DATA_DIR)',
      ]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  }, 60_000);
});
