import request from 'supertest';
import { compileConfig } from '../../config/compile-config';
import { volumeKey } from './ip-throttle';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';

// Three requests a minute per address; each test sends from its own address (the harness's peer
// is loopback, a trusted proxy, so X-Forwarded-For names the client).
let h: Harness;
beforeAll(async () => {
  h = await startHarness((raw) => {
    raw.plans.per_ip_per_minute = 3;
  });
});
afterAll(() => h.close());

const LIST = '/v1/legal-documents?q=luat';
const from = (ip: string, key?: string) => {
  const r = request(h.gw.app).get(LIST).set('X-Forwarded-For', ip);
  return key ? r.set('X-Api-Key', key) : r;
};

describe('per-IP throttle: happy path', () => {
  it('serves an address up to the limit, and counts addresses apart', async () => {
    const { key } = await h.account('pro');
    for (let i = 0; i < 3; i++) expect((await from('198.51.100.1', key)).status).toBe(200);
    expect((await from('198.51.100.2', key)).status).toBe(200);
  });
});

describe('per-IP throttle: over the limit', () => {
  it('answers 429 too_many_requests with Retry-After within the minute, and costs the account nothing', async () => {
    const { key } = await h.account('pro');
    for (let i = 0; i < 3; i++) await from('198.51.100.3', key);
    const res = await from('198.51.100.3', key);
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ success: false, code: 'too_many_requests' });
    const retry = Number(res.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    const me = await request(h.gw.app)
      .get('/v1/me')
      .set('X-Api-Key', key)
      .set('X-Forwarded-For', '198.51.100.30');
    expect(me.body.data.quota.monthly_used).toBe(3);
  });

  it('keeps an address its count across a config reload, and applies the new limit', async () => {
    const { key } = await h.account('pro');
    for (let i = 0; i < 3; i++) await from('198.51.100.4', key);
    const raw = structuredClone(h.config.raw);
    raw.plans.per_ip_per_minute = 4;
    h.gw.reload(compileConfig(raw));
    try {
      expect((await from('198.51.100.4', key)).status).toBe(200);
      expect((await from('198.51.100.4', key)).body.code).toBe('too_many_requests');
    } finally {
      h.gw.reload(h.config);
    }
  });
});

describe('per-IP throttle: security', () => {
  it('counts requests without a key or with a wrong one, so key guessing is throttled before authentication', async () => {
    expect((await from('198.51.100.5')).status).toBe(401);
    expect((await from('198.51.100.5', 'lk_live_wrong')).status).toBe(401);
    expect((await from('198.51.100.5', 'lk_live_wrong')).status).toBe(401);
    const res = await from('198.51.100.5', 'lk_live_wrong');
    expect([res.status, res.body.code]).toEqual([429, 'too_many_requests']);
  });
});

describe('per-IP throttle: IPv6 and the documentation', () => {
  it('counts the addresses of one IPv6 /64 together, so a host cannot step past the limit by changing its address', async () => {
    for (const ip of ['2a01:4f8:1:2::1', '2a01:4f8:1:2::2', '2a01:4f8:1:2:ffff::3']) {
      expect((await from(ip)).status).toBe(401);
    }
    const res = await from('2a01:4f8:1:2:abcd::4');
    expect([res.status, res.body.code]).toEqual([429, 'too_many_requests']);
    expect((await from('2a01:4f8:1:3::1')).status).toBe(401);
  });

  it('counts a 6to4 site and a Teredo client as the IPv4 address each is built on, whatever address of it is used', async () => {
    for (const ip of ['2002:cb00:7107::1', '2002:cb00:7107:1::2', '2002:cb00:7107:ffff:1:2:3:4']) {
      expect((await from(ip)).status).toBe(401);
    }
    const site = await from('2002:cb00:7107:abcd::9');
    expect([site.status, site.body.code]).toEqual([429, 'too_many_requests']);
    for (const ip of [
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001:0:4136:e378:8000:1234:3fff:fdd2',
      '2001:0:5ef5:79fd:0:abcd:3fff:fdd2',
    ]) {
      expect((await from(ip)).status).toBe(401);
    }
    const teredo = await from('2001:0:4136:e379:0:ffff:3fff:fdd2');
    expect([teredo.status, teredo.body.code]).toEqual([429, 'too_many_requests']);
    expect(volumeKey('2002:cb00:7107::1')).toBe('203.0.113.7');
    expect(volumeKey('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toBe('192.0.2.45');
    // Other global ranges count by /64, as plain unicast does.
    expect(volumeKey('2001:db8:1:2::7')).toBe('2001:db8:1:2::/64');
  });

  it('counts private IPv6 addresses one by one, and a NAT64 address as the IPv4 client it carries', () => {
    expect(volumeKey('2a01:4f8:1:2::1')).toBe('2a01:4f8:1:2::/64');
    expect(volumeKey('2a01:4f8:1:2:abcd::9')).toBe('2a01:4f8:1:2::/64');
    // A cluster's pods share a ULA /64; each is its own client.
    expect(volumeKey('fd00:10:244:1::a')).toBe('fd00:10:244:1::a');
    expect(volumeKey('fe80::1')).toBe('fe80::1');
    expect(volumeKey('64:ff9b::c633:6407')).toBe('198.51.100.7');
    expect(volumeKey('198.51.100.7')).toBe('198.51.100.7');
  });

  it('counts requests for the API description and the docs page, and refuses them over the limit in the envelope', async () => {
    const get = (path: string) => request(h.gw.app).get(path).set('X-Forwarded-For', '198.51.100.6');
    expect((await get('/v1/openapi.json')).status).toBe(200);
    expect((await get('/docs')).status).toBe(200);
    expect((await get('/docs/init.js')).status).toBe(200);
    const res = await get('/v1/openapi.json');
    expect([res.status, res.body.success, res.body.code]).toEqual([429, false, 'too_many_requests']);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('counts a documentation path the pipeline answers (unknown, or another method) once, not twice', async () => {
    const ip = '198.51.100.7';
    expect((await request(h.gw.app).get('/docs/nope').set('X-Forwarded-For', ip)).status).toBe(404);
    expect((await request(h.gw.app).post('/docs').set('X-Forwarded-For', ip)).status).toBe(405);
    expect((await request(h.gw.app).get('/docs').set('X-Forwarded-For', ip)).status).toBe(200);
    const res = await request(h.gw.app).get('/docs').set('X-Forwarded-For', ip);
    expect(res.body.code).toBe('too_many_requests');
  });
});
