import request from 'supertest';
import { join } from 'node:path';
import { compileConfig } from '../../src/config/compile-config';
import type { RuntimeConfig } from '../../src/config/compile-config';
import { loadRawConfig } from '../../src/config/load-config';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue';
import { buildOpenApi, openApiFor } from '../../src/openapi/build-openapi';
import type { OpenApiDocument, OperationObject, ParameterObject } from '../../src/openapi/openapi-types';
import { RECORD_SCHEMAS } from '../../src/openapi/record-schemas';
import { startHarness } from '../support/gateway-harness';
import type { Harness } from '../support/gateway-harness';
import { createOpenApiValidator, expectMatchesOpenApi } from '../support/openapi-validator';

const CONFIG_DIR = join(__dirname, '..', '..', 'config');
const load = (): RuntimeConfig => compileConfig(loadRawConfig(CONFIG_DIR));
const config = load();
const doc: OpenApiDocument = buildOpenApi(config);

const ops = (): [string, OperationObject][] => Object.entries(doc.paths).map(([p, item]) => [p, item.get]);
const params = (op: OperationObject): ParameterObject[] =>
  (op.parameters ?? []).map((p) => {
    if (!('$ref' in p)) return p;
    const name = p.$ref.split('/').pop()!;
    return doc.components.parameters[name]!;
  });

describe('document generated from the registry', () => {
  it('has list, detail and sub-resource paths for every dataset in datasets.yaml', () => {
    for (const ds of config.datasets.values()) {
      expect(doc.paths[`/v1/${ds.path}`]).toBeDefined();
      if (ds.detail) expect(doc.paths[`/v1/${ds.path}/{id}`]).toBeDefined();
      else expect(doc.paths[`/v1/${ds.path}/{id}`]).toBeUndefined();
      for (const sub of ds.subresources.keys()) expect(doc.paths[`/v1/${ds.path}/{id}/${sub}`]).toBeDefined();
    }
    for (const p of ['/v1/me', '/v1/datasets', '/v1/openapi.json']) expect(doc.paths[p]).toBeDefined();
  });

  it('describes every record shape of the reference, and only datasets that exist', () => {
    for (const path of RECORD_SCHEMAS.keys()) expect(config.datasets.has(path)).toBe(true);
    const list = doc.paths['/v1/legal-documents']!.get;
    expect(JSON.stringify(list.responses['200'])).toContain('#/components/schemas/LegalDocument"');
    const detail = doc.components.schemas.LegalDocumentDetail!;
    const props = detail.properties as Record<string, Record<string, unknown>>;
    expect(props.content_html!['x-min-plan']).toBe('starter');
    expect(props.content_html!['x-preview-below-min-plan']).toBe(true);
    expect(props.replaces!['x-min-plan']).toBe('pro');
    expect(props.name!['x-min-plan']).toBe('free');
    expect(doc.components.schemas.OrganisationDetail).toBeDefined();
    expect(doc.components.schemas.SharedCatalogItemDetail).toBeDefined();
    // Fields always present (null when empty) are required, so generated types need no `?`; a
    // field a lower plan does not get at all is not.
    const required = (name: string): unknown[] => doc.components.schemas[name]!.required as unknown[];
    expect(required('LegalDocument')).toEqual(expect.arrayContaining(['effective_date', 'source_url']));
    expect(required('LegalDocumentDetail')).toEqual(expect.arrayContaining(['signer', 'content_html']));
    expect(required('LegalDocumentDetail')).not.toContain('replaces');
    expect(required('OrganisationDetail')).toEqual(expect.arrayContaining(['province_code', 'updated_at']));
    expect(required('SharedCatalogItemDetail')).toContain('is_active');
  });

  it('types every parameter: enums with defaults, dates, ids, required-one-of, ranges, page ceilings', () => {
    const list = doc.paths['/v1/legal-documents']!.get;
    const byName = Object.fromEntries(params(list).map((p) => [p.name, p]));
    expect(byName.database!.schema).toEqual({
      type: 'string',
      enum: ['vbqppl', 'ban-an', 'dieu-uoc', 'tieu-chuan', 'cong-van'],
      default: 'vbqppl',
    });
    expect(byName.issued_from!.schema).toEqual({ type: 'string', format: 'date' });
    expect(byName.type_id!.schema).toMatchObject({ type: 'integer', minimum: 1 });
    expect(byName.q!.schema).toEqual({ type: 'string', maxLength: 200 });
    expect(byName.q!.description).toContain('issued_to');
    expect(list['x-require-one-of']).toEqual(config.datasets.get('legal-documents')!.requireOneOf);
    expect(list.description).toContain('422 invalid_request');
    expect(list['x-ranges']).toEqual([{ from: 'issued_from', to: 'issued_to' }]);
    expect(list.description).toContain('`issued_from` ≤ `issued_to`');
    expect(byName.page!['x-max-page-by-plan']).toEqual({ free: 5, starter: 20, pro: 50, enterprise: 200 });
    expect(byName.per_page!.schema).toEqual({ type: 'integer', minimum: 1, default: 20 });
    expect(byName.per_page!.description).toContain('Enterprise 200');
  });

  it('states plan requirements and costs per endpoint, and the plans with their numbers', () => {
    expect(doc.paths['/v1/legal-documents/{id}/relations']!.get['x-min-plan']).toBe('pro');
    expect(doc.paths['/v1/legal-documents/{id}/relations']!.get['x-cost']).toBe(2);
    // The relations answer has no content_html: its operation lists no field gating nor full-text cap.
    const relations = doc.paths['/v1/legal-documents/{id}/relations']!.get.description;
    expect([relations.includes('content_html'), relations.includes('Full text')]).toEqual([false, false]);
    expect(doc.paths['/v1/legal-documents/{id}']!.get.description).toContain('daily full-text cap');
    // Nor does a list's: its rows are not the detail's record, and a list opens no full text.
    const list = doc.paths['/v1/legal-documents']!.get.description;
    expect([list.includes('content_html'), list.includes('Full text')]).toEqual([false, false]);
    expect(doc.paths['/v1/legal-documents']!.get['x-min-plan']).toBe('free');
    expect(doc['x-plans']).toEqual(
      config.planList.map((p) => expect.objectContaining({ name: p.name, monthly_calls: p.monthly_calls })),
    );
  });

  it('declares both key headers as security schemes; only openapi.json is public', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.apiKeyHeader).toMatchObject({ in: 'header', name: 'X-Api-Key' });
    for (const [path, op] of ops()) {
      if (path === '/v1/openapi.json') expect(op.security).toEqual([]);
      else expect(op.security).toBeUndefined();
    }
  });

  it('gives every error code of the public API its status and a catalogue example', () => {
    const responses = doc.components.responses ?? {};
    // Each code's example, by the name of the response it hangs on.
    const seen = new Map<string, string>();
    for (const [name, r] of Object.entries(responses)) {
      const examples = r.content!['application/json']!.examples!;
      for (const ex of Object.values(examples)) {
        const value = ex.value as { code: keyof typeof ERROR_CATALOGUE; message: string };
        seen.set(value.code, name);
        expect(name).toMatch(new RegExp(`^Error${ERROR_CATALOGUE[value.code].status}_`));
      }
    }
    // The reference's Errors table, code by code (405 is below).
    const reference: Record<string, number> = {
      unauthorized: 401,
      plan_required: 403,
      ip_not_allowed: 403,
      email_unverified: 403,
      account_restricted: 403,
      not_found: 404,
      invalid_request: 422,
      page_limit: 422,
      rate_limited: 429,
      quota_exceeded: 429,
      full_text_limit: 429,
      too_many_requests: 429,
      search_unavailable: 503,
      // Not in the reference's table: what an unexpected failure answers, documented so clients can parse it.
      internal_error: 500,
    };
    expect([...seen.keys()].sort()).toEqual(Object.keys(reference).sort());
    for (const [code, status] of Object.entries(reference))
      expect([code, seen.get(code)]).toEqual([code, expect.stringMatching(new RegExp(`^Error${status}_`))]);
    // 405 has no GET operation to hang on: it is in the code list of ErrorCode.
    expect(doc.components.schemas.ErrorCode!.enum).toContain('method_not_allowed');
    // The public API never answers with the admin API's own codes, so its code list leaves them out.
    for (const c of ['forbidden', 'conflict', 'payload_too_large', 'service_unavailable'])
      expect(doc.components.schemas.ErrorCode!.enum).not.toContain(c);
  });

  it('declares a 4xx response on every operation, the document itself included (401 for a key in the URL, 429 per IP)', () => {
    for (const [, op] of ops()) expect(Object.keys(op.responses).some((s) => s.startsWith('4'))).toBe(true);
    expect(Object.keys(doc.paths['/v1/openapi.json']!.get.responses).sort()).toEqual(['200', '401', '429']);
  });

  it('documents the quota and rate headers, Cache-Control, Retry-After on every 429 and 503, WWW-Authenticate on 401', () => {
    expect(Object.keys(doc.components.headers).sort()).toEqual(
      [
        'Cache-Control',
        'WWW-Authenticate',
        'RateLimit',
        'RateLimit-Policy',
        'Retry-After',
        'X-Quota-Limit',
        'X-Quota-Remaining',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-Request-Id',
      ].sort(),
    );
    const withRetry = Object.entries(doc.components.responses ?? {}).filter(([name]) =>
      /^Error(429|503)/.test(name),
    );
    expect(withRetry.map(([name]) => name.slice(5, 8)).sort()).toEqual(
      expect.arrayContaining(['429', '503']),
    );
    for (const [, r] of withRetry)
      expect(r.headers!['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    const with401 = Object.entries(doc.components.responses ?? {}).filter(([name]) => /^Error401/.test(name));
    expect(with401.length).toBeGreaterThan(0);
    for (const [, r] of with401)
      expect(r.headers!['WWW-Authenticate']).toEqual({ $ref: '#/components/headers/WWW-Authenticate' });
  });

  it('is built once per config object; a new config (hot reload) gets its own document', () => {
    expect(openApiFor(config)).toBe(openApiFor(config));
    const next = load();
    expect(openApiFor(next)).not.toBe(openApiFor(config));
    expect(openApiFor(next).json).toBe(openApiFor(config).json);
  });
});

describe('response validator', () => {
  const v = createOpenApiValidator(doc);
  const headers = { 'x-request-id': 'r1', 'content-type': 'application/json; charset=utf-8' };

  it('finds the operation for a concrete path, literal paths first', () => {
    expect(v.operationFor('get', '/v1/legal-documents/vb_1?x=1')?.template).toBe('/v1/legal-documents/{id}');
    expect(v.operationFor('get', '/v1/catalogs/agencies')?.template).toBe('/v1/catalogs/agencies');
    expect(v.operationFor('get', '/v1/nope/x/y/z')).toBeUndefined();
  });

  it('refuses a body that breaks the schema, with a readable message', () => {
    const body = {
      success: true,
      data: { id: 'tc_1', name: 3 },
      meta: { locked_fields: [], upgrade_url: 'x' },
    };
    expect(() =>
      v.expectMatchesOpenApi({ status: 200, body, headers }, 'get', '/v1/bailiff-offices/tc_1'),
    ).toThrow(/GET \/v1\/bailiff-offices\/tc_1 → 200 does not match[\s\S]*\/data\/name: must be string/);
  });

  it('refuses an undocumented status, a missing required header and an unknown error code', () => {
    const err = { success: false, code: 'not_found', message: 'x' };
    expect(v.problems({ status: 418, body: err, headers }, 'get', '/v1/me')[0]).toMatch(
      /418 is not documented/,
    );
    expect(v.problems({ status: 404, body: err, headers: {} }, 'get', '/v1/legal-documents/vb_1')).toContain(
      'header X-Request-Id: missing (required)',
    );
    expect(
      v.problems(
        { status: 404, body: { ...err, code: 'page_limit' }, headers },
        'get',
        '/v1/legal-documents/vb_1',
      ),
    ).toEqual([expect.stringMatching(/^body\/code: must be equal to one of the allowed values/)]);
  });

  it('expectMatchesOpenApi uses the repository config by default', () => {
    expect(() =>
      expectMatchesOpenApi(
        {
          status: 401,
          body: { success: false, code: 'unauthorized', message: 'x' },
          headers: { ...headers, 'www-authenticate': 'Bearer' },
        },
        'get',
        '/v1/me',
      ),
    ).not.toThrow();
  });
});

describe('docs router mounted in the gateway app', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('serves /v1/openapi.json without a key, with an ETag, and never meters it', async () => {
    const res = await request(h.gw.app).get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    const again = await request(h.gw.app).get('/v1/openapi.json').set('If-None-Match', res.headers.etag!);
    expect(again.status).toBe(304);
    expect([res.headers['x-content-type-options'], again.headers['x-content-type-options']]).toEqual([
      'nosniff',
      'nosniff',
    ]);
    expect(h.stub.seen).toHaveLength(0);
    // Fetched with a key too, it counts against nothing.
    const { key } = await h.account('free');
    const withKey = await request(h.gw.app).get('/v1/openapi.json').set('X-Api-Key', key);
    expect(withKey.status).toBe(200);
    const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', key);
    expect(me.body.data.quota).toMatchObject({ daily_used: 0, monthly_used: 0 });
  });

  it('follows a config reload', async () => {
    const raw = loadRawConfig(CONFIG_DIR);
    raw.datasets.datasets.push({
      ...raw.datasets.datasets.at(-1)!,
      path: 'reloaded-dataset',
      id_prefix: 'rl_',
    });
    for (const u of Object.values(raw.upstreams.upstreams)) u.url = h.stub.url;
    const before = await request(h.gw.app).get('/v1/openapi.json');
    h.gw.reload(compileConfig(raw));
    const after = await request(h.gw.app).get('/v1/openapi.json');
    expect(before.body.paths['/v1/reloaded-dataset']).toBeUndefined();
    expect(after.body.paths['/v1/reloaded-dataset']).toBeDefined();
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('serves the /docs page and Swagger UI assets from node_modules, nothing else', async () => {
    const page = await request(h.gw.app).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toContain('Tài liệu tham chiếu');
    expect(page.text).not.toMatch(/https?:\/\/(?!example)/);
    const js = await request(h.gw.app).get('/docs/swagger-ui-bundle.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect((await request(h.gw.app).get('/docs/swagger-ui.css')).status).toBe(200);
    expect((await request(h.gw.app).get('/docs/init.js')).text).toContain("url: '/v1/openapi.json'");
    // The package's demo page and anything else under /docs fall through to the API's 404.
    const demo = await request(h.gw.app).get('/docs/index.html');
    expect(demo.status).toBe(404);
    expect(demo.body.code).toBe('not_found');
    expect((await request(h.gw.app).get('/docs/package.json')).status).toBe(404);
  });

  it('leaves other methods to the pipeline', async () => {
    const res = await request(h.gw.app).post('/v1/openapi.json');
    expect(res.status).toBe(405);
  });
});
