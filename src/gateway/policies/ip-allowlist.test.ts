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

/** A list call with a new key allowing 203.0.113.0/24, from 198.51.100.7. */
async function refusedCall() {
  const acc = await h.account('starter', { ipAllowlist: ['203.0.113.0/24'] });
  const res = await request(h.gw.app)
    .get(list)
    .set('X-Api-Key', acc.key)
    .set('X-Forwarded-For', '198.51.100.7');
  return { acc, res };
}

describe('ip-allowlist: happy path', () => {
  it('admits the loopback peer when the key allows 127.0.0.0/8', async () => {
    const { key } = await h.account('starter', { ipAllowlist: ['127.0.0.0/8'] });
    expect((await request(h.gw.app).get(list).set('X-Api-Key', key)).status).toBe(200);
  });

  it('takes the client address from X-Forwarded-For when the peer is a trusted proxy', async () => {
    const { key } = await h.account('starter', { ipAllowlist: ['203.0.113.0/24', '2001:db8::/32'] });
    const v4 = await request(h.gw.app)
      .get(list)
      .set('X-Api-Key', key)
      .set('X-Forwarded-For', '198.51.100.7, 203.0.113.9');
    expect(v4.status).toBe(200);
    const v6 = await request(h.gw.app).get(list).set('X-Api-Key', key).set('X-Forwarded-For', '2001:db8::1');
    expect(v6.status).toBe(200);
  });

  it('reads an X-Forwarded-For entry that carries a port as its address, not as the proxy', async () => {
    const { key } = await h.account('starter', { ipAllowlist: ['203.0.113.0/24', '2001:db8::/32'] });
    const from = (xff: string) =>
      request(h.gw.app).get(list).set('X-Api-Key', key).set('X-Forwarded-For', xff);
    expect((await from('203.0.113.9:4711')).status).toBe(200);
    expect((await from('[2001:db8::5]:4711')).status).toBe(200);
    expect((await from('[2001:db8::5]')).status).toBe(200);
    expect((await from('198.51.100.7:4711')).status).toBe(403);
    // What is not an address stops the walk at the proxy: loopback is not on this key's list.
    expect((await from('203.0.113.9:99999999')).status).toBe(403);
  });

  it('reads X-Forwarded-For sent over several lines as one list, in their order', async () => {
    const { key } = await h.account('starter', { ipAllowlist: ['203.0.113.0/24'] });
    const send = (lines: string[]) =>
      getWithHeaderLines(h.gw.app, list, { 'X-Api-Key': [key], 'X-Forwarded-For': lines });
    expect((await send(['198.51.100.7', '203.0.113.9'])).status).toBe(200);
    expect((await send(['203.0.113.9', '198.51.100.7'])).status).toBe(403);
  });

  it('matches IPv4 clients against an IPv4-mapped range of /96 or narrower', async () => {
    const { key } = await h.account('starter', { ipAllowlist: ['::ffff:192.0.2.0/120'] });
    const from = async (ip: string) =>
      (await request(h.gw.app).get(list).set('X-Api-Key', key).set('X-Forwarded-For', ip)).status;
    expect([await from('192.0.2.77'), await from('192.0.3.1')]).toEqual([200, 403]);
  });
});

describe('ip-allowlist: errors', () => {
  it('answers 403 ip_not_allowed for an address outside the list, costing nothing', async () => {
    const { acc, res } = await refusedCall();
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('ip_not_allowed');
    // The address the gateway saw, which is the one to allow (NAT, a proxy in between).
    expect(res.body.message).toBe(
      'Địa chỉ IP gọi API (198.51.100.7) không nằm trong danh sách được phép của key.',
    );
    const me = await request(h.gw.app)
      .get('/v1/me')
      .set('X-Api-Key', acc.key)
      .set('X-Forwarded-For', '203.0.113.9');
    expect(me.body.data.quota).toMatchObject({ monthly_used: 0, daily_used: 0 });
  });
});

describe('ip-allowlist: security', () => {
  it("tells a key used from a refused address nothing of the account's usage: no quota or rate headers", async () => {
    const { res } = await refusedCall();
    expect(res.status).toBe(403);
    const leaked = Object.keys(res.headers).filter((k) => /quota|ratelimit/i.test(k));
    expect(leaked).toEqual([]);
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('marks the refusal of a valid key private and not to be stored, as every answer to a key is', async () => {
    const { res } = await refusedCall();
    expect([res.status, res.headers['cache-control']]).toEqual([403, 'private, no-store']);
  });

  it('keeps a key closed, never open, when a stored entry is one the admin API now refuses', async () => {
    // A mapped range wider than /96 became an IPv4 prefix below zero, which ipaddr.js matches with
    // every address; "010.0.0.1" reads as 8.0.0.1.
    const log = capturedLog();
    const quiet = h.deps.logger;
    h.deps.logger = log.logger;
    try {
      const { key } = await h.account('starter', { ipAllowlist: ['::ffff:192.0.2.0/24', '010.0.0.1'] });
      for (const ip of ['8.8.8.8', '192.0.2.1', '8.0.0.1', '10.0.0.1']) {
        const res = await request(h.gw.app).get(list).set('X-Api-Key', key).set('X-Forwarded-For', ip);
        expect([ip, res.status, res.body.code]).toEqual([ip, 403, 'ip_not_allowed']);
      }
      // Said once for the key record, not for each request.
      const warned = log.lines.filter((l) => String(l.msg).startsWith('IP allowlist entries'));
      expect(warned.map((l) => l.ignored)).toEqual([['::ffff:192.0.2.0/24', '010.0.0.1']]);
    } finally {
      h.deps.logger = quiet;
    }
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const untrusting = await startHarness((raw) => {
      raw.gateway.trusted_proxies = ['10.0.0.0/8'];
    });
    try {
      const { key } = await untrusting.account('starter', { ipAllowlist: ['203.0.113.0/24'] });
      const res = await request(untrusting.gw.app)
        .get(list)
        .set('X-Api-Key', key)
        .set('X-Forwarded-For', '203.0.113.9');
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('ip_not_allowed');
    } finally {
      await untrusting.close();
    }
  });
});
