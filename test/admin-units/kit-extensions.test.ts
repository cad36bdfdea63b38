import request from 'supertest';
import type { Db } from '../../src/db/db';
import { openTestPglite } from '../support/pglite-template';
import { createUpstreamApp, insertRows, parsePointParam, pointOf, readLatLng } from '../../src/upstream-kit';
import type { DatasetSpec } from '../../src/upstream-kit';
import { silentLogger } from '../../src/util/logger';

// The kit additions made for admin-units, on a dataset of their own: the `point` param type, a
// filter resolved outside SQL, and an app that must load something before it answers.
describe('kit: point parameters', () => {
  it('parses lat,lng like the gateway and normalises it', () => {
    expect(readLatLng(' 21.0285 , 105.8542 ')).toEqual({ lat: 21.0285, lng: 105.8542 });
    expect(parsePointParam('point', '21.50,105')).toBe('21.5,105');
    expect(pointOf('10,-20')).toEqual({ lat: 10, lng: -20 });
    for (const bad of ['', '1', '1,2,3', 'a,b', '1e2,3', '90.1,0', '0,180.5', '+1,2'])
      expect({ bad, p: readLatLng(bad) }).toEqual({ bad, p: undefined });
    expect(() => parsePointParam('point', '91,0')).toThrow(/lat,lng/);
  });
});

describe('kit: resolved filters and readiness', () => {
  let db: Db;
  const seen: string[] = [];
  let release: () => void = () => undefined;
  const loaded = new Promise<void>((r) => (release = r));
  const spec: DatasetSpec = {
    path: 'spots',
    idPrefix: 's_',
    from: 'kit_spots s',
    idColumn: 's.id',
    listFields: { id: 's.id' },
    filters: {
      near: {
        param: { type: 'point' },
        // Stands for an in-memory index: points north of the equator are "in" s_1.
        resolve: (v) => {
          seen.push(String(v));
          return Promise.resolve(pointOf(v).lat > 0 ? 's_1' : '');
        },
        where: (p) => `s.id = ANY(string_to_array(${p}::text, ','))`,
      },
    },
    defaultOrder: 's.id',
  };
  const app = () => createUpstreamApp({ db, logger: silentLogger(), datasets: [spec], ready: () => loaded });

  beforeAll(async () => {
    db = await openTestPglite();
    await db.exec('CREATE TABLE kit_spots (id text PRIMARY KEY)');
    await insertRows(db, 'kit_spots', ['id'], [['s_1'], ['s_2']]);
  });
  afterAll(() => db.close());

  it('holds requests and reports not ready until ready() resolves', async () => {
    const a = app();
    let answered = false;
    const pending = request(a)
      .get('/spots')
      .then((r) => {
        answered = true;
        return r;
      });
    const health = await request(a)
      .get('/healthz')
      .timeout(300)
      .catch(() => 'timeout');
    expect(health).toBe('timeout');
    expect(answered).toBe(false);
    release();
    expect((await pending).body.total).toBe(2);
    expect((await request(a).get('/healthz')).status).toBe(200);
  });

  it('binds the resolved value, normalised, only when the parameter is present', async () => {
    expect((await request(app()).get('/spots?near=10.50,3')).body).toEqual({
      data: [{ id: 's_1' }],
      total: 1,
    });
    expect((await request(app()).get('/spots?near=-10,3')).body).toEqual({ data: [], total: 0 });
    expect(seen).toEqual(['10.5,3', '-10,3']);
    expect((await request(app()).get('/spots?near=')).body.total).toBe(2);
    const r = await request(app()).get('/spots?near=100,3');
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', param: 'near' });
  });

  it('answers 503 on /healthz and 500 on requests when ready() fails', async () => {
    const failing = createUpstreamApp({
      db,
      logger: silentLogger(),
      datasets: [spec],
      ready: () => Promise.reject(new Error('index not built')),
    });
    expect((await request(failing).get('/healthz')).status).toBe(503);
    expect((await request(failing).get('/spots')).body).toEqual({
      code: 'internal_error',
      message: expect.any(String),
    });
  });
});
