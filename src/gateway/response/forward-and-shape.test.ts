import request from 'supertest';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';
import { capturedLog } from '../../../test/support/captured-log';

let h: Harness;
let logged: Record<string, unknown>[] = [];
beforeAll(async () => {
  // Relations open to every plan here, so a sub-resource meets each plan's field rules; answers
  // held at once bounded to the least the setting takes.
  h = await startHarness((raw) => {
    raw.gateway.upstream_memory_mb = 16;
    // The 17 MB answer must reach the bound, not the harness's 1 s deadline: on a loaded machine
    // sending it once took longer (a timeout, not the memory bound, failed the call).
    raw.upstreams.upstreams.legal!.timeout_ms = 30_000;
    const legal = raw.datasets.datasets.find((d) => d.path === 'legal-documents')!;
    legal.subresources.relations!.min_plan = 'free';
  });
  const captured = capturedLog();
  h.deps.logger = captured.logger;
  logged = captured.lines;
});
afterAll(() => h.close());

const get = (key: string, path: string) => request(h.gw.app).get(path).set('X-Api-Key', key);
const used = async (key: string): Promise<number> => (await get(key, '/v1/me')).body.data.quota.monthly_used;
const failures = async (reason?: string): Promise<number> =>
  (await h.deps.metrics.upstreamFailures.get()).values
    .filter((v) => v.labels.upstream === 'legal' && (reason === undefined || v.labels.reason === reason))
    .reduce((sum, v) => sum + v.value, 0);

describe('upstream answers: happy path', () => {
  it('cuts a list to the page the caller may have when the upstream sends more rows, and logs it', async () => {
    const { key } = await h.account('pro');
    const res = await get(key, '/v1/legal-documents?q=toomany&per_page=5');
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(5);
    expect(res.body.meta.per_page).toBe(5);
    expect(logged.at(-1)).toMatchObject({ msg: 'upstream answer mended', upstream: 'legal' });
  });

  it("passes the upstream's 422 message to the caller, and no field the reference does not list, uncounted", async () => {
    const { key } = await h.account('pro');
    const res = await get(key, '/v1/legal-documents?q=bad');
    expect([res.status, res.body.code]).toEqual([422, 'invalid_request']);
    expect(Object.keys(res.body).sort()).toEqual(['code', 'message', 'success']);
    expect(res.body.message).toBe('issued_from after issued_to');
    expect(await used(key)).toBe(0);
  });
});

describe('upstream answers: errors', () => {
  it.each([
    [
      "a detail 404 without the contract's code (a path the upstream does not serve)",
      '/v1/legal-documents/vb_nocode',
      /^404 without a code/,
      'bad_status',
    ],
    [
      "a 422 whose body is not the contract's (a proxy's page)",
      '/v1/legal-documents?q=page422',
      /^422 without a code/,
      'bad_status',
    ],
    [
      'a 422 with a code other than invalid_request',
      '/v1/legal-documents?q=other422',
      /^422 too_busy/,
      'bad_status',
    ],
    ['a 400, which the contract does not have', '/v1/legal-documents?q=bad400', /^status 400/, 'bad_status'],
    ['a 500, the upstream failing', '/v1/legal-documents?q=boom', /^status 500/, 'server_error'],
    [
      'list rows that are not JSON objects',
      '/v1/legal-documents?q=junkrows',
      /list row is not a JSON object/,
      'bad_body',
    ],
    ['a list total below zero', '/v1/legal-documents?q=negative', /total/, 'bad_body'],
    ['a list total that is not a whole number', '/v1/legal-documents?q=fraction', /total/, 'bad_body'],
    [
      'a sub-resource whose data is an array',
      '/v1/legal-documents/vb_rows/relations',
      /subresource data is not a JSON object/,
      'bad_body',
    ],
  ])(
    'answers 503 search_unavailable, uncounted, with the reason in the log and the metric, for %s',
    async (_what, path, reason, kind) => {
      const { key } = await h.account('pro');
      const [before, all] = [await failures(kind), await failures()];
      const res = await get(key, path);
      // Counted once, under its reason.
      expect([await failures(kind), await failures()]).toEqual([before + 1, all + 1]);
      expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([
        503,
        'search_unavailable',
        '5',
      ]);
      expect(logged.at(-1)).toMatchObject({ msg: 'upstream answer refused', upstream: 'legal' });
      expect(String(logged.at(-1)!.reason)).toMatch(reason);
      expect(await used(key)).toBe(0);
    },
  );

  it('still counts a detail 404 that says not_found: the caller asked for an unknown id', async () => {
    const { key } = await h.account('pro');
    expect((await get(key, '/v1/legal-documents/vb_missing')).status).toBe(404);
    expect(await used(key)).toBe(1);
  });

  it('answers 503 search_unavailable, not counted, for an answer past what the process holds of upstream answers, and serves the next one', async () => {
    const { key } = await h.account('pro');
    const before = await failures('memory_bound');
    const res = await get(key, '/v1/legal-documents/vb_huge');
    expect(await failures('memory_bound')).toBe(before + 1);
    expect([res.status, res.body.code, res.headers['retry-after']]).toEqual([503, 'search_unavailable', '5']);
    expect(logged.at(-1)).toMatchObject({
      msg: 'upstream call failed',
      err: expect.stringMatching(/upstream_memory_mb/),
    });
    expect(await used(key)).toBe(0);
    expect((await get(key, '/v1/legal-documents/vb_12')).status).toBe(200);
    expect(h.deps.upstreamMemory.held()).toBe(0);
  });

  it('answers 500 internal_error for a record nested too deep to write, and gives the call back', async () => {
    const { key } = await h.account('pro');
    const res = await get(key, '/v1/legal-documents/vb_deep');
    expect([res.status, res.body]).toEqual([
      500,
      { success: false, code: 'internal_error', message: expect.any(String) },
    ]);
    expect(await used(key)).toBe(0);
  });
});

describe('upstream answers: security', () => {
  it("applies the plan's field rules to a sub-resource as to the detail", async () => {
    const { key } = await h.account('free');
    const res = await get(key, '/v1/legal-documents/vb_leaky/relations');
    expect(res.status).toBe(200);
    expect(res.body.data).not.toHaveProperty('content_en_html');
    expect(String(res.body.data.content_html).length).toBeLessThan(1500);
    expect(res.body.data.cites).toEqual([{ id: 'vb_2' }]);
    expect(res.body.meta.locked_fields).toEqual(expect.arrayContaining(['content_html', 'content_en_html']));
  });

  it('never gives the full text through a sub-resource, which only the detail opens against the daily cap', async () => {
    const { key } = await h.account('pro');
    const res = await get(key, '/v1/legal-documents/vb_leaky/relations');
    expect(res.status).toBe(200);
    expect(String(res.body.data.content_html).length).toBeLessThan(1500);
    expect(res.body.data.content_en_html).toBe('<p>English</p>');
    expect(res.body.meta.locked_fields).toContain('content_html');
    expect((await get(key, '/v1/me')).body.data.quota.full_text_used_today).toBe(0);
    const plain = await get(key, '/v1/legal-documents/vb_1/relations');
    expect(plain.body.meta.locked_fields).toEqual([]);
  });

  it('never gives the full text in list rows, to any plan, nor counts them against the daily cap', async () => {
    for (const plan of ['free', 'starter', 'pro'] as const) {
      const { key } = await h.account(plan);
      const res = await get(key, '/v1/legal-documents?q=leaky&per_page=3');
      expect([plan, res.status, res.body.data.length]).toEqual([plan, 200, 3]);
      for (const row of res.body.data) {
        // A preview: text, shorter than the whole.
        expect(typeof row.content_html).toBe('string');
        expect(row.content_html.length).toBeGreaterThan(0);
        expect(row.content_html.length).toBeLessThan(1500);
      }
      expect(res.body.data[0].content_en_html).toBe(plan === 'pro' ? '<p>English</p>' : undefined);
      expect(res.body.meta.locked_fields).toContain('content_html');
      expect((await get(key, '/v1/me')).body.data.quota.full_text_used_today).toBe(0);
    }
    const { key } = await h.account('pro');
    expect((await get(key, '/v1/legal-documents?q=few')).body.meta.locked_fields).toEqual([]);
    // The field's name written with a JSON escape is the same field.
    const escaped = await get(key, '/v1/legal-documents?q=escaped');
    expect(typeof escaped.body.data[0].content_html).toBe('string');
    expect(escaped.body.data[0].content_html.length).toBeLessThan(1500);
    // No text is nothing withheld: null stays, and is not named.
    const nulls = await get(key, '/v1/legal-documents?q=nulltext&per_page=2');
    expect(nulls.body.data.map((r: { content_html: unknown }) => r.content_html)).toEqual([null, null]);
    expect(nulls.body.meta.locked_fields).toEqual([]);
  });

  it('gives a detail its own full text, counted, and a document nested in it only a preview', async () => {
    const { key } = await h.account('pro');
    const res = await get(key, '/v1/legal-documents/vb_5_leaky');
    expect(res.status).toBe(200);
    expect(res.body.data.content_html.length).toBeGreaterThan(1500);
    expect(res.body.data.replaced_by).toHaveLength(1);
    expect(res.body.data.replaced_by[0].id).toBe('vb_9');
    expect(typeof res.body.data.replaced_by[0].content_html).toBe('string');
    expect(res.body.data.replaced_by[0].content_html.length).toBeGreaterThan(0);
    expect(res.body.data.replaced_by[0].content_html.length).toBeLessThan(1500);
    expect(res.body.meta.locked_fields).toEqual([]);
    expect((await get(key, '/v1/me')).body.data.quota.full_text_used_today).toBe(1);
  });

  it('never hands the bulk-extraction watch more ids than a page holds', async () => {
    const { key } = await h.account('free');
    const watched: number[] = [];
    const record = h.deps.onIdsReturned!;
    h.deps.onIdsReturned = (acc, ds, ids, plan, lockEnded) => {
      watched.push(ids.length);
      record(acc, ds, ids, plan, lockEnded);
    };
    try {
      expect((await get(key, '/v1/legal-documents?q=toomany&per_page=5')).status).toBe(200);
      expect(watched).toEqual([5]);
    } finally {
      h.deps.onIdsReturned = record;
    }
  });
});
