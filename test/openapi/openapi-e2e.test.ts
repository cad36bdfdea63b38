import { appendFileSync, rmSync } from 'node:fs';
import { RECORD_SCHEMAS } from '../../src/openapi/record-schemas';
import { createOpenApiValidator } from '../support/openapi-validator';
import type { HttpResult, OpenApiValidator } from '../support/openapi-validator';
import { httpGet, startE2eProduct } from './e2e-support';
import type { E2eProduct } from './e2e-support';

// End to end: the real product (gateway, admin API, built-in upstreams with sample data, PGlite);
// every response below is validated against the document the product serves.

type Envelope = { success: boolean; data: unknown; meta?: Record<string, unknown>; code?: string };

let e: E2eProduct;
let validator: OpenApiValidator;
const keys: Record<string, string> = {};
let checked = 0;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** GET, validated against the served document; a 429 rate_limited (validated too) is waited out. */
async function get(path: string, key?: string): Promise<HttpResult & { body: Envelope }> {
  for (let attempt = 0; ; attempt++) {
    const res = await httpGet(e.base, path, key);
    validator.expectMatchesOpenApi(res, 'get', path);
    checked += 1;
    const body = res.body as Envelope;
    if (res.status === 429 && body.code === 'rate_limited' && attempt < 5) {
      await sleep(1000 * Number(res.headers['retry-after'] ?? 1));
      continue;
    }
    return { ...res, body };
  }
}

const records = (r: { body: Envelope }): Record<string, unknown>[] =>
  r.body.data as Record<string, unknown>[];

beforeAll(async () => {
  e = await startE2eProduct();
  const doc = await httpGet(e.base, '/v1/openapi.json');
  expect(doc.status).toBe(200);
  validator = createOpenApiValidator(doc.body);
  validator.expectMatchesOpenApi(doc, 'get', '/v1/openapi.json');
  for (const plan of ['free', 'starter', 'pro', 'enterprise']) keys[plan] = (await e.account(plan)).key;
}, 180_000);

afterAll(async () => {
  await e?.product.shutdown();
  if (e) rmSync(e.root, { recursive: true, force: true });
});

describe('described datasets, list and detail, validated against /v1/openapi.json', () => {
  it('legal documents: list with filters, detail per plan, relations', async () => {
    const list = await get('/v1/legal-documents?q=luat&per_page=5', keys.enterprise);
    expect(list.status).toBe(200);
    expect(records(list).length).toBeGreaterThan(0);
    const byStatus = await get(
      '/v1/legal-documents?status_id=1&sort=newest&issued_from=2000-01-01',
      keys.starter,
    );
    expect(byStatus.status).toBe(200);
    const byCode = await get('/v1/legal-documents?q=ND-CP&search_in=code&database=vbqppl', keys.pro);
    expect(byCode.status).toBe(200);

    const id = String(records(list)[0]!.id);
    const free = await get(`/v1/legal-documents/${id}`, keys.free);
    expect(free.status).toBe(200);
    expect(free.body.meta?.locked_fields).toEqual(expect.arrayContaining(['content_html', 'replaces']));
    const pro = await get(`/v1/legal-documents/${id}`, keys.pro);
    expect(pro.status).toBe(200);
    expect(pro.body.data).toHaveProperty('replaced_by');
    const relations = await get(`/v1/legal-documents/${id}/relations`, keys.pro);
    expect(relations.status).toBe(200);
    expect(relations.body.data).toHaveProperty('cited_by');
  });

  it('catalogs: every filter catalogue, agencies searched by name', async () => {
    for (const path of [...RECORD_SCHEMAS.keys()].filter((p) => p.startsWith('catalogs/'))) {
      const res = await get(`/v1/${path}`, keys.starter);
      expect(res.status).toBe(200);
      expect(records(res).length).toBeGreaterThan(0);
    }
    const agencies = await get('/v1/catalogs/agencies?q=bo', keys.free);
    expect(agencies.status).toBe(200);
    const statuses = await get('/v1/catalogs/statuses', keys.free);
    expect(records(statuses)).toHaveLength(6);
  });

  it('directory and finance-ministry catalogues: every sibling, list and detail', async () => {
    const paths = [...RECORD_SCHEMAS.keys()].filter(
      (p) => !p.startsWith('catalogs/') && p !== 'legal-documents',
    );
    expect(paths.length).toBeGreaterThanOrEqual(19);
    for (const path of paths) {
      const list = await get(`/v1/${path}?per_page=3`, keys.enterprise);
      expect(list.status).toBe(200);
      const first = records(list)[0];
      expect(first).toBeDefined();
      const detail = await get(`/v1/${path}/${String(first!.id)}`, keys.enterprise);
      expect(detail.status).toBe(200);
    }
    const filtered = await get('/v1/bailiff-offices?is_active=true&q=van phong', keys.starter);
    expect(filtered.status).toBe(200);
    const coded = await get('/v1/dmdc-business-unit-types?code=01', keys.starter);
    expect(coded.status).toBe(200);
  });

  it('datasets without a described shape answer as their generic schema says', async () => {
    // Whatever else datasets.yaml holds: lists that need no filter, and the detail of a record.
    let lists = 0;
    let details = 0;
    for (const ds of e.product.gateway.config().datasets.values()) {
      if (RECORD_SCHEMAS.has(ds.path) || ds.requireOneOf.length > 0) continue;
      const list = await get(`/v1/${ds.path}?per_page=2`, keys.enterprise);
      expect(list.status).toBe(200);
      lists += 1;
      const first = records(list)[0];
      if (ds.detail && first) {
        expect((await get(`/v1/${ds.path}/${String(first.id)}`, keys.enterprise)).status).toBe(200);
        details += 1;
      }
    }
    // The sample configuration has such datasets; a loop that checked none would prove nothing.
    expect([lists > 0, details > 0]).toEqual([true, true]);
  });

  it('/v1/me and /v1/datasets for every plan', async () => {
    for (const key of Object.values(keys)) {
      const me = await get('/v1/me', key);
      expect(me.status).toBe(200);
      const datasets = await get('/v1/datasets', key);
      expect(datasets.status).toBe(200);
    }
  });

  it('per_page above the plan ceiling is lowered, as documented', async () => {
    const res = await get('/v1/bailiff-offices?per_page=500', keys.free);
    expect(res.status).toBe(200);
    expect(res.body.meta?.per_page).toBe(20);
  });
});

describe('reachable errors, validated against the document', () => {
  it('401 unauthorized: no key, unknown key, key in the query string', async () => {
    expect((await get('/v1/legal-documents?q=luat')).status).toBe(401);
    expect((await get('/v1/me', 'lk_' + 'A'.repeat(43))).status).toBe(401);
    expect((await get(`/v1/datasets?api_key=${keys.free}`)).status).toBe(401);
  });

  it('403 plan_required, email_unverified, account_restricted', async () => {
    const list = await get('/v1/legal-documents?q=luat&per_page=1', keys.enterprise);
    const id = String(records(list)[0]!.id);
    const gated = await get(`/v1/legal-documents/${id}/relations`, keys.starter);
    expect(gated.status).toBe(403);
    expect(gated.body.code).toBe('plan_required');

    const unverified = await e.account('starter', { verified: false });
    const r1 = await get('/v1/bailiff-offices', unverified.key);
    expect(r1.body.code).toBe('email_unverified');

    const locked = await e.account('pro');
    await e.patchAccount(locked.id, { restricted_until: new Date(Date.now() + 3_600_000).toISOString() });
    const r2 = await get('/v1/bailiff-offices', locked.key);
    expect(r2.body.code).toBe('account_restricted');
    const r3 = await get('/v1/me', locked.key);
    expect([r3.status, r3.body.code]).toEqual([403, 'account_restricted']);
  });

  it('404 not_found for an unknown id and for an id of another dataset', async () => {
    expect((await get('/v1/legal-documents/vb_doesnotexist', keys.pro)).status).toBe(404);
    expect((await get('/v1/bailiff-offices/vb_wrongprefix', keys.pro)).status).toBe(404);
    expect((await get('/v1/legal-documents/vb_doesnotexist/relations', keys.pro)).status).toBe(404);
  });

  it('422 invalid_request: required-one-of, bad date, bad enum, bad page', async () => {
    for (const path of [
      '/v1/legal-documents',
      '/v1/legal-documents?issued_from=2024-02-30',
      '/v1/legal-documents?q=luat&database=xyz',
      '/v1/bailiff-offices?page=abc',
      '/v1/bailiff-offices?is_active=maybe',
    ]) {
      const res = await get(path, keys.starter);
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('invalid_request');
    }
  });

  it('422 page_limit past the plan’s max_page', async () => {
    const res = await get('/v1/bailiff-offices?page=6', keys.free);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('page_limit');
  });

  it('429 rate_limited carries Retry-After', async () => {
    const { key } = await e.account('free');
    // Free allows 2 a second and 10 a minute: to all fit, 11 at once would have to spread over six
    // seconds and across a minute's turn, where 5 fitted whenever a loaded machine took 3 s.
    const all = await Promise.all(
      Array.from({ length: 11 }, () => httpGet(e.base, '/v1/dmdc-share-types', key)),
    );
    for (const res of all) validator.expectMatchesOpenApi(res, 'get', '/v1/dmdc-share-types');
    expect(all.map((r) => r.status)).toContain(429);
  });

  it('validated a meaningful number of responses', () => {
    expect(checked).toBeGreaterThan(60);
  });
});

describe('the document follows the registry', () => {
  it('is served without a key and not counted', async () => {
    const { key } = await e.account('free');
    const before = await get('/v1/me', key);
    for (let i = 0; i < 3; i++) expect((await httpGet(e.base, '/v1/openapi.json')).status).toBe(200);
    const after = await get('/v1/me', key);
    const used = (r: { body: Envelope }): unknown =>
      (r.body.data as { quota: { monthly_used: number } }).quota.monthly_used;
    expect(used(after)).toBe(used(before));
    // A key in its URL is refused as everywhere, with the 401 the document declares for itself.
    const refused = await httpGet(e.base, `/v1/openapi.json?api_key=${key}`);
    expect(refused.status).toBe(401);
    validator.expectMatchesOpenApi(refused, 'get', '/v1/openapi.json');
  });

  it('a dataset added to datasets.yaml shows in /v1/openapi.json after a reload, without code changes', async () => {
    const before = (await httpGet(e.base, '/v1/openapi.json')).body as { paths: Record<string, unknown> };
    expect(before.paths['/v1/test-added-registry']).toBeUndefined();
    appendFileSync(
      `${e.configDir}/datasets.yaml`,
      `
  - path: test-added-registry
    upstream: directory
    id_prefix: tar_
    min_plan: pro
    title: Added registry
    title_vi: Danh mục thêm mới
    list:
      require_one_of: [region, since]
      params:
        region: { type: enum, values: [north, central, south] }
        since: { type: date }
        limit_to: { type: integer, min: 1, max: 9 }
    fields:
      secret_note: { min_plan: enterprise }
`,
    );
    expect(await e.product.reloadConfig()).toBe(true);
    const res = await httpGet(e.base, '/v1/openapi.json');
    validator.expectMatchesOpenApi(res, 'get', '/v1/openapi.json');
    const doc = res.body as {
      paths: Record<string, { get: Record<string, unknown> & { parameters: Record<string, unknown>[] } }>;
    };
    const list = doc.paths['/v1/test-added-registry']!.get;
    expect(list['x-min-plan']).toBe('pro');
    expect(list['x-require-one-of']).toEqual(['region', 'since']);
    const params = Object.fromEntries(
      list.parameters.filter((p) => 'name' in p).map((p) => [p.name, p.schema]),
    );
    expect(params.region).toEqual({ type: 'string', enum: ['north', 'central', 'south'] });
    expect(params.since).toEqual({ type: 'string', format: 'date' });
    expect(params.limit_to).toEqual({ type: 'integer', minimum: 1, maximum: 9 });
    expect(doc.paths['/v1/test-added-registry/{id}']).toBeDefined();
    expect(JSON.stringify(doc)).toContain('"secret_note"');

    // The product validates the new dataset's parameters as the document says.
    const v2 = createOpenApiValidator(doc);
    const bad = await httpGet(e.base, '/v1/test-added-registry?region=west', keys.enterprise);
    v2.expectMatchesOpenApi(bad, 'get', '/v1/test-added-registry?region=west');
    expect(bad.status).toBe(422);
    const gated = await httpGet(e.base, '/v1/test-added-registry?region=north', keys.starter);
    v2.expectMatchesOpenApi(gated, 'get', '/v1/test-added-registry?region=north');
    expect(gated.status).toBe(403);
  });
});
