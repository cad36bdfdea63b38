import request from 'supertest';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';

let h: Harness;
let free: string;
let enterprise: string;
beforeAll(async () => {
  h = await startHarness();
  free = (await h.account('free')).key;
  enterprise = (await h.account('enterprise')).key;
});
afterAll(() => h.close());

const get = (key: string, path: string) => request(h.gw.app).get(path).set('X-Api-Key', key);
const paths = (r: request.Response): string[] => (r.body.data as { path: string }[]).map((d) => d.path);

describe('GET /v1/datasets: what each dataset is', () => {
  it("gives each dataset's id prefix, and none for a catalogue whose items go by their own ids", async () => {
    const data = (await get(enterprise, '/v1/datasets')).body.data as {
      path: string;
      id_prefix: string | null;
    }[];
    const prefix = (path: string) => data.find((d) => d.path === path)?.id_prefix;
    expect(prefix('/v1/legal-documents')).toBe('vb_');
    expect(prefix('/v1/catalogs/statuses')).toBeNull();
    expect(prefix('/v1/catalogs/databases')).toBeNull();
  });
});

describe('GET /v1/datasets: the whole list, or paged like every list when asked', () => {
  it('lowers per_page to the plan ceiling and reports the page, the total and has_more', async () => {
    const all = paths(await get(enterprise, '/v1/datasets?per_page=200'));
    expect(all.length).toBeGreaterThan(3);
    const res = await get(free, '/v1/datasets?per_page=500');
    expect(res.status).toBe(200);
    const total = res.body.meta.total as number;
    expect(res.body.meta).toMatchObject({ page: 1, per_page: 20, max_page: 5, locked_fields: [] });
    expect(res.body.data).toHaveLength(Math.min(20, total));
    expect(res.body.meta.has_more).toBe(total > 20);
  });

  it('walks the whole list page by page, each dataset once, in the order of one full page', async () => {
    const full = await get(enterprise, '/v1/datasets?per_page=200');
    const total = full.body.meta.total as number;
    expect(paths(full)).toHaveLength(total);
    const walked: string[] = [];
    for (let page = 1; ; page++) {
      const res = await get(enterprise, `/v1/datasets?per_page=3&page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.meta).toMatchObject({ page, per_page: 3, total });
      walked.push(...paths(res));
      if (!res.body.meta.has_more) break;
    }
    expect(walked).toEqual(paths(full));
  });

  it('answers a page past the last dataset with an empty list, not an error', async () => {
    const res = await get(enterprise, '/v1/datasets?per_page=200&page=2');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toMatchObject({ page: 2, has_more: false });
  });

  it('answers every dataset of the plan in one page when neither page nor per_page is given', async () => {
    const all = paths(await get(enterprise, '/v1/datasets?per_page=200'));
    for (const query of ['', '?page=', '?per_page=&page=']) {
      const res = await get(enterprise, `/v1/datasets${query}`);
      expect(res.status).toBe(200);
      expect(paths(res)).toEqual(all);
      expect(res.body.meta).toMatchObject({
        page: 1,
        per_page: all.length,
        total: all.length,
        has_more: false,
      });
    }
    const freeAll = await get(free, '/v1/datasets');
    expect(freeAll.body.meta.total).toBeGreaterThan(20);
    expect(freeAll.body.data).toHaveLength(freeAll.body.meta.total);
  });
});

describe('GET /v1/datasets: errors', () => {
  it('answers 422 page_limit past the plan maximum, with upgrade_url', async () => {
    const res = await get(free, '/v1/datasets?page=6');
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'page_limit' });
    expect(typeof res.body.upgrade_url).toBe('string');
  });

  it.each([['page=0'], ['page=abc'], ['per_page=-1'], ['page=1&page=2']])(
    'answers 422 invalid_request for %s',
    async (query) => {
      const res = await get(free, `/v1/datasets?${query}`);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, code: 'invalid_request' });
    },
  );
});

describe('GET /v1/datasets: how to call each dataset', () => {
  it('gives the parameters, the required-one-of group and the ranges a list call is checked against', async () => {
    const res = await get(free, '/v1/datasets');
    const datasets = res.body.data as { path: string; parameters: { name: string }[] }[];
    const legal = datasets.find((d) => d.path === '/v1/legal-documents')!;
    // The reference's list parameters of GET /v1/legal-documents (page and per_page are every list's).
    const params = legal.parameters;
    expect(params.map((p) => p.name).sort()).toEqual(
      [
        'q',
        'search_in',
        'database',
        'type_id',
        'field_id',
        'agency_id',
        'status_id',
        'issued_from',
        'issued_to',
        'sort',
      ].sort(),
    );
    const param = (name: string) => params.find((p) => p.name === name);
    expect(param('search_in')).toMatchObject({ type: 'enum', values: ['name', 'code'], default: 'name' });
    expect(param('database')).toMatchObject({
      type: 'enum',
      values: ['vbqppl', 'ban-an', 'dieu-uoc', 'tieu-chuan', 'cong-van'],
      default: 'vbqppl',
    });
    expect(param('sort')).toMatchObject({ type: 'enum', values: ['relevance', 'newest', 'oldest'] });
    expect([param('type_id'), param('issued_from'), param('q')]).toMatchObject([
      { type: 'id' },
      { type: 'date' },
      { type: 'string' },
    ]);
    expect(legal).toMatchObject({
      require_one_of: ['q', 'type_id', 'field_id', 'agency_id', 'status_id', 'issued_from', 'issued_to'],
      ranges: [{ from: 'issued_from', to: 'issued_to' }],
    });
    const bailiffs = datasets.find((d) => d.path === '/v1/bailiff-offices');
    expect(bailiffs).toMatchObject({ require_one_of: [], ranges: [] });
  });
});

describe('GET /v1/datasets: a sub-resource of a dataset above its own plan', () => {
  let above: Harness;
  beforeAll(async () => {
    above = await startHarness((raw) => {
      const legal = raw.datasets.datasets.find((d) => d.path === 'legal-documents')!;
      legal.min_plan = 'starter';
      legal.subresources.relations!.min_plan = 'free';
    });
  });
  afterAll(() => above.close());

  it("names the plan the sub-resource really needs, its record's, as the OpenAPI document does", async () => {
    const { key } = await above.account('starter');
    const res = await request(above.gw.app).get('/v1/datasets').set('X-Api-Key', key);
    const legal = (
      res.body.data as { path: string; subresources: { name: string; min_plan: string }[] }[]
    ).find((d) => d.path === '/v1/legal-documents')!;
    expect(legal.subresources).toEqual([
      { name: 'relations', min_plan: 'starter', cost: 2, available: true },
    ]);
    const doc = (await request(above.gw.app).get('/v1/openapi.json')).body as {
      paths: Record<string, { get: { 'x-min-plan': string } }>;
    };
    expect(doc.paths['/v1/legal-documents/{id}/relations']!.get['x-min-plan']).toBe('starter');
  });
});
