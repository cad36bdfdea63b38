import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { unitId } from '../support/admin-unit-ids';
import { everyDataset } from '../support/dataset-pages';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import { openTestPglite } from '../support/pglite-template';
import { adminUnitsUpstream } from '../../src/upstreams/admin-units/admin-units-upstream';
import { silentLogger } from '../../src/util/logger';
import { startHarness } from '../support/gateway-harness';
import type { Harness } from '../support/gateway-harness';

// End to end: the real config/datasets.yaml entries, the real admin-units upstream over HTTP (on
// PGlite, seeded with the real data) behind the real gateway pipeline. Nothing in the gateway
// knows about these datasets beyond the YAML.
let h: Harness;
let db: Db;
let server: Server;

beforeAll(async () => {
  db = await openTestPglite();
  for (const set of adminUnitsUpstream.migrationSets) await migrate(db, set);
  await adminUnitsUpstream.seed(db, {});
  server = createServer(adminUnitsUpstream.createApp({ db, logger: silentLogger() }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await startHarness((raw) => {
    raw.upstreams.upstreams['admin-units']!.url = url;
    raw.upstreams.upstreams['admin-units']!.timeout_ms = 5000;
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await new Promise<void>((r) => server?.close(() => r()));
  await db?.close();
});

const get = (key: string, path: string) => request(h.gw.app).get(path).set('X-Api-Key', key);
const used = async (key: string): Promise<number> => (await get(key, '/v1/me')).body.data.quota.monthly_used;

describe('admin-units through the gateway', () => {
  it('lists the new datasets in /v1/datasets for a Free plan', async () => {
    const { key } = await h.account('free');
    const all = await everyDataset<{ path: string; locked_fields: string[] }>(h.gw.app, key);
    const byPath = new Map(all.map((d) => [d.path, d.locked_fields]));
    expect(byPath.get('/v1/provinces')).toEqual([]);
    expect(byPath.get('/v1/wards')).toEqual([]);
    expect(byPath.get('/v1/legacy-provinces')).toEqual([]);
    expect(byPath.get('/v1/legacy-wards')).toEqual([]);
    expect(byPath.get('/v1/province-boundaries')).toEqual(['geometry']);
    expect(byPath.get('/v1/ward-boundaries')).toEqual(['geometry']);
  });

  it('answers a point lookup in the envelope, with meta, and counts one call', async () => {
    const { key } = await h.account('free');
    const r = await get(key, '/v1/ward-boundaries?point=21.0285,105.8542');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: [
        expect.objectContaining({
          id: unitId('ward-boundaries', '00070'),
          full_name: 'Phường Hoàn Kiếm',
          province: { id: unitId('provinces', '01'), code: '01', name: 'Hà Nội' },
        }),
      ],
      meta: {
        page: 1,
        per_page: 20,
        total: 1,
        has_more: false,
        max_page: 5,
        locked_fields: ['geometry'],
        upgrade_url: 'https://example.vn/pricing',
      },
    });
    expect(r.headers['x-quota-remaining']).toBe('999');
    expect(await used(key)).toBe(1);
  });

  it('finds a point written as a program prints a double, with 15 decimals', async () => {
    const { key } = await h.account('free');
    const r = await get(key, '/v1/ward-boundaries?point=21.028499999999998,105.85420000000001');
    expect([r.status, r.body.data.map((w: { full_name: string }) => w.full_name)]).toEqual([
      200,
      ['Phường Hoàn Kiếm'],
    ]);
  });

  it('answers an empty page at sea, still one call', async () => {
    const { key } = await h.account('free');
    const r = await get(key, '/v1/province-boundaries?point=15.0,112.0');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
    expect(r.body.meta).toMatchObject({ total: 0, has_more: false });
    expect(await used(key)).toBe(1);
  });

  it('answers a point within a millionth of a degree of 0° (written plainly, not as 1e-7) with an empty page, one call', async () => {
    const { key } = await h.account('starter');
    for (const p of ['0.0000001,105.8', '21.0285,-0.0000005', '-0.00000000000000000001,0.000']) {
      const r = await get(key, `/v1/province-boundaries?point=${encodeURIComponent(p)}`);
      expect({ p, status: r.status, data: r.body.data, total: r.body.meta?.total }).toEqual({
        p,
        status: 200,
        data: [],
        total: 0,
      });
    }
    expect(await used(key)).toBe(3);
  });

  it('withholds geometry below Starter and names it in locked_fields; Starter gets it', async () => {
    const free = (await h.account('free')).key;
    const lower = await get(free, `/v1/ward-boundaries/${unitId('ward-boundaries', '00070')}`);
    expect(lower.status).toBe(200);
    expect(lower.body.data).not.toHaveProperty('geometry');
    expect(lower.body.data.unit_id).toBe(unitId('wards', '00070'));
    expect(lower.body.meta).toEqual({
      locked_fields: ['geometry'],
      upgrade_url: 'https://example.vn/pricing',
    });
    const starter = (await h.account('starter')).key;
    const full = await get(starter, `/v1/province-boundaries/${unitId('province-boundaries', '79')}`);
    expect(full.body.data.geometry.type).toBe('MultiPolygon');
    expect(full.body.meta.locked_fields).toEqual([]);
  });

  it('applies the plan ceilings: per_page lowered, page past max_page refused without cost', async () => {
    const { key } = await h.account('free');
    const r = await get(key, '/v1/wards?province_code=01&per_page=100&page=2');
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(20);
    expect(r.body.meta).toMatchObject({ page: 2, per_page: 20, total: 126, has_more: true, max_page: 5 });
    const last = await get(key, '/v1/wards?province_code=01&page=5');
    expect(last.body.meta.has_more).toBe(false);
    const over = await get(key, '/v1/wards?province_code=01&page=6');
    expect(over.status).toBe(422);
    expect(over.body.code).toBe('page_limit');
    expect(await used(key)).toBe(2);
  });

  it('refuses malformed and out-of-range points with 422 invalid_request, at no cost', async () => {
    const { key } = await h.account('free');
    for (const p of ['abc', '21.0285', '91,105', '21,181', '21.0285;105.8542']) {
      const r = await get(key, `/v1/ward-boundaries?point=${encodeURIComponent(p)}`);
      expect({ p, status: r.status, code: r.body.code, success: r.body.success }).toEqual({
        p,
        status: 422,
        code: 'invalid_request',
        success: false,
      });
    }
    expect((await get(key, '/v1/ward-boundaries')).status).toBe(422);
    expect(await used(key)).toBe(0);
  });

  it('counts a 404 for an unknown id', async () => {
    const { key } = await h.account('free');
    const r = await get(key, `/v1/wards/${unitId('wards', '99999')}`);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, code: 'not_found' });
    expect(await used(key)).toBe(1);
  });

  it('answers "what is my new ward?" for an old address, and the reverse', async () => {
    const { key } = await h.account('free');
    const old = await get(key, '/v1/legacy-wards?q=c%E1%BB%91ng+v%E1%BB%8B&province_code=01');
    expect(old.body.data).toHaveLength(1);
    expect(old.body.data[0].went_to.map((w: { id: string }) => w.id)).toEqual([
      unitId('wards', '00008'),
      unitId('wards', '00025'),
    ]);
    const now = await get(key, `/v1/wards/${unitId('wards', '00008')}`);
    expect(now.body.data.came_from.map((w: { code: string }) => w.code)).toContain('00007');
  });
});
