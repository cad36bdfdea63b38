import request from 'supertest';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';

let h: Harness;
let key: string;
beforeAll(async () => {
  h = await startHarness();
  key = (await h.account('enterprise')).key;
});
afterAll(() => h.close());
// Each test reads only the upstream calls it made itself.
beforeEach(() => {
  h.stub.seen.length = 0;
});

const get = (path: string) => request(h.gw.app).get(path).set('X-Api-Key', key);
const lastUpstreamQuery = () => h.stub.seen.at(-1)!.query;

describe('validate: happy path', () => {
  it('forwards declared parameters with defaults applied and page/per_page set', async () => {
    const res = await get('/v1/legal-documents?q=%20luat%20&type_id=3&issued_from=2024-02-29');
    expect(res.status).toBe(200);
    expect(lastUpstreamQuery()).toEqual({
      q: 'luat',
      search_in: 'name',
      database: 'vbqppl',
      type_id: '3',
      issued_from: '2024-02-29',
      sort: 'relevance',
      page: '1',
      per_page: '20',
    });
  });

  it('forwards a value with reserved and non-ASCII characters exactly as the caller meant it', async () => {
    const q = "luật đất đai & thuế=10% + phí (2024)! ~'*";
    const res = await get(`/v1/legal-documents?q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(200);
    expect(lastUpstreamQuery().q).toBe(q);
    const plus = await get('/v1/legal-documents?q=luat+dat+dai');
    expect(plus.status).toBe(200);
    expect(lastUpstreamQuery().q).toBe('luat dat dai');
  });

  it('does not forward parameters the dataset does not declare', async () => {
    expect((await get('/v1/legal-documents?q=luat&evil=1')).status).toBe(200);
    expect(h.stub.seen).toHaveLength(1);
    expect(lastUpstreamQuery().q).toBe('luat');
    expect(lastUpstreamQuery().evil).toBeUndefined();
  });

  it('lowers per_page to the plan ceiling silently and reports it in meta', async () => {
    const free = (await h.account('free')).key;
    const res = await request(h.gw.app).get('/v1/legal-documents?q=luat&per_page=500').set('X-Api-Key', free);
    expect(res.status).toBe(200);
    expect(res.body.meta.per_page).toBe(20);
    expect(res.body.data).toHaveLength(20);
    expect(lastUpstreamQuery().per_page).toBe('20');
  });

  it('reads page, per_page and ids with leading zeros by their value, however many zeros', async () => {
    const res = await get('/v1/legal-documents?q=luat&page=0000000000000002&per_page=00000000000000000005');
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ page: 2, per_page: 5 });
    expect(lastUpstreamQuery()).toMatchObject({ page: '2', per_page: '5' });
    expect((await get('/v1/legal-documents?type_id=000000000003')).status).toBe(200);
    expect(lastUpstreamQuery().type_id).toBe('3');
  });

  it('accepts a date range of one day and a range with one bound', async () => {
    expect((await get('/v1/legal-documents?issued_from=2024-03-01&issued_to=2024-03-01')).status).toBe(200);
    expect(lastUpstreamQuery()).toMatchObject({ issued_from: '2024-03-01', issued_to: '2024-03-01' });
    expect((await get('/v1/legal-documents?issued_from=2024-03-01')).status).toBe(200);
    expect((await get('/v1/legal-documents?issued_to=2024-03-01')).status).toBe(200);
  });

  it.each([
    ['true', 'true'],
    ['false', 'false'],
    ['1', 'true'],
    ['0', 'false'],
  ])('accepts the boolean %s and forwards it as %s', async (given, forwarded) => {
    expect((await get(`/v1/bailiff-offices?is_active=${given}`)).status).toBe(200);
    expect(lastUpstreamQuery().is_active).toBe(forwarded);
  });

  it('computes has_more from the page, the plan ceiling and the total', async () => {
    const free = (await h.account('free')).key;
    const last = await request(h.gw.app).get('/v1/legal-documents?q=luat&page=5').set('X-Api-Key', free);
    expect(last.body.meta).toMatchObject({ page: 5, max_page: 5, total: 1000, has_more: false });
    const few = await get('/v1/legal-documents?q=few&per_page=3');
    expect(few.body.meta).toMatchObject({ total: 3, has_more: false });
    const more = await get('/v1/legal-documents?q=luat&per_page=3');
    expect(more.body.meta.has_more).toBe(true);
  });
});

describe('validate: errors', () => {
  it('says what an id may be when it is too large', async () => {
    const res = await get('/v1/legal-documents?type_id=2147483648');
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('2147483647');
  });

  it.each([
    ['/v1/legal-documents', 'no filter at all'],
    ['/v1/legal-documents?database=ban-an', 'only a non-filter parameter'],
    ['/v1/legal-documents?q=', 'an empty q'],
    ['/v1/legal-documents?type_id=abc', 'a non-numeric id'],
    ['/v1/legal-documents?type_id=-1', 'a negative id'],
    ['/v1/legal-documents?type_id=2147483648', 'an id past the largest one'],
    ['/v1/legal-documents?issued_from=2025-02-30', 'a date that does not exist'],
    ['/v1/legal-documents?issued_from=15/01/2024', 'a date in another format'],
    ['/v1/legal-documents?q=luat&sort=popular', 'a value outside the enum'],
    ['/v1/legal-documents?q=luat&database=foo', 'an unknown database'],
    ['/v1/legal-documents?q=luat&search_in=body', 'an unknown search_in'],
    ['/v1/bailiff-offices?is_active=yes', 'a boolean that is not true/false'],
    ['/v1/legal-documents?q=luat&page=0', 'page 0'],
    ['/v1/legal-documents?q=luat&page=abc', 'a non-numeric page'],
    ['/v1/legal-documents?q=luat&per_page=0', 'per_page 0'],
    ['/v1/legal-documents?q=luat&per_page=-5', 'a negative per_page'],
    ['/v1/legal-documents?q=luat&q=dat', 'a repeated parameter'],
    ['/v1/legal-documents?q=%E0%A4%A', 'bad percent-encoding'],
    ['/v1/legal-documents?q=lu%00at', 'a control character'],
    ['/v1/legal-documents?q=luat%0D%0AX-Injected:%201', 'CR LF'],
    ['/v1/legal-documents?q=lu%0Aat', 'a line feed'],
    ['/v1/legal-documents?q=lu%09at', 'a tab'],
    ['/v1/legal-documents?q=lu%7Fat', 'DEL'],
    ['/v1/legal-documents?q=lu%C2%85at', 'a C1 control character (U+0085)'],
    [`/v1/legal-documents?q=${'a'.repeat(201)}`, 'a q longer than its max length'],
    ['/v1/legal-documents/vb_1?x=%ZZ', 'bad percent-encoding on a detail, which reads no parameter'],
    ['/v1/legal-documents/vb_1/relations?x=lu%00at', 'a control character on a sub-resource'],
    ['/v1/me?x=%E0%A4%A', 'bad percent-encoding on /v1/me'],
    ['/v1/datasets?x=%ZZ', 'bad percent-encoding on /v1/datasets'],
  ])('answers 422 invalid_request for %s (%s) without calling the upstream', async (path) => {
    h.stub.seen.length = 0;
    const res = await get(path);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'invalid_request' });
    expect(typeof res.body.message).toBe('string');
    expect(h.stub.seen).toHaveLength(0);
  });

  it('names the years a date may have when it refuses one before year 100, which it cannot store', async () => {
    const acc = await h.account('free');
    const res = await request(h.gw.app)
      .get('/v1/legal-documents?issued_from=0050-01-01')
      .set('X-Api-Key', acc.key);
    expect([res.status, res.body.code]).toEqual([422, 'invalid_request']);
    // The parameter is named in the message: the reference's error bodies have no other field for it.
    expect(Object.keys(res.body).sort()).toEqual(['code', 'message', 'success']);
    expect(res.body.message).toContain('issued_from');
    expect(res.body.message).toContain('năm từ 0100 đến 9999');
  });

  it('answers 422 for issued_from after issued_to, naming both, without calling the upstream or counting', async () => {
    const acc = await h.account('free');
    h.stub.seen.length = 0;
    const res = await request(h.gw.app)
      .get('/v1/legal-documents?issued_from=2020-01-01&issued_to=2019-12-31')
      .set('X-Api-Key', acc.key);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, code: 'invalid_request' });
    expect(res.body.message).toContain('issued_from (2020-01-01)');
    expect(res.body.message).toContain('issued_to (2019-12-31)');
    expect(h.stub.seen).toHaveLength(0);
    const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', acc.key);
    expect(me.body.data.quota.monthly_used).toBe(0);
  });

  it('counts a keyword in characters, the same composed or decomposed (NFC or NFD)', async () => {
    const q = (n: number) => encodeURIComponent('ế'.repeat(n).normalize('NFD'));
    expect((await get(`/v1/legal-documents?q=${q(200)}`)).status).toBe(200);
    const over = await get(`/v1/legal-documents?q=${q(201)}`);
    expect([over.status, over.body.code]).toEqual([422, 'invalid_request']);
    expect(over.body.message).toContain('Tham số q ');
  });

  it('answers 422 for a declared parameter in bracket form (type_id[]=1), which would otherwise match everything', async () => {
    h.stub.seen.length = 0;
    for (const qs of ['q=luat&type_id[]=1', 'q=luat&type_id%5B0%5D=1', 'q=luat&agency_id[x]=2']) {
      const res = await get(`/v1/legal-documents?${qs}`);
      expect([qs, res.status, res.body.code]).toEqual([qs, 422, 'invalid_request']);
      expect(res.body.message).toMatch(/type_id|agency_id/);
    }
    expect(h.stub.seen).toHaveLength(0);
    // An undeclared name in brackets is only ignored, like any unknown parameter.
    expect((await get('/v1/legal-documents?q=luat&tags[]=x')).status).toBe(200);
  });

  it('answers 422 for page or per_page in bracket form (page[x]=2), which would otherwise serve page 1', async () => {
    h.stub.seen.length = 0;
    for (const qs of ['q=luat&page[x]=2', 'q=luat&page%5B%5D=2', 'q=luat&per_page[0]=5']) {
      const res = await get(`/v1/legal-documents?${qs}`);
      expect([qs, res.status, res.body.code]).toEqual([qs, 422, 'invalid_request']);
      expect(res.body.message).toMatch(/Tham số (page|per_page) được truyền một lần/);
    }
    expect((await get('/v1/datasets?page[x]=2')).status).toBe(422);
    expect(h.stub.seen).toHaveLength(0);
  });

  it('answers 422 page_limit past the plan maximum, with upgrade_url', async () => {
    const free = (await h.account('free')).key;
    const res = await request(h.gw.app).get('/v1/legal-documents?q=luat&page=6').set('X-Api-Key', free);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('page_limit');
    expect(Object.keys(res.body).sort()).toEqual(['code', 'message', 'success', 'upgrade_url']);
    expect(res.body.message).toBe('Số trang tối đa của gói Free là 5.');
    expect(res.body.upgrade_url).toBe('https://example.vn/pricing');
  });

  it('answers page_limit (not a 5xx) for an absurdly large page', async () => {
    const res = await get('/v1/legal-documents?q=luat&page=999999999999999999999999');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('page_limit');
    expect(Object.keys(res.body).sort()).toEqual(['code', 'message', 'success', 'upgrade_url']);
  });

  it('does not count a validation failure against the quota', async () => {
    const acc = await h.account('free');
    await request(h.gw.app).get('/v1/legal-documents').set('X-Api-Key', acc.key);
    const me = await request(h.gw.app).get('/v1/me').set('X-Api-Key', acc.key);
    expect(me.body.data.quota.monthly_used).toBe(0);
  });
});

describe('validate: security', () => {
  it('answers a very long URL with a 4xx envelope', async () => {
    const res = await get(`/v1/legal-documents?q=${'x'.repeat(10_000)}`);
    expect(res.status).toBe(422);
    expect(res.body.success).toBe(false);
  });

  it('answers malformed input of many kinds with a 4xx, never a 5xx', async () => {
    const paths = [
      '/v1/legal-documents?%',
      '/v1/legal-documents?q=%ZZ',
      '/v1/%E0%A4%A',
      '/v1/legal-documents?q[]=a',
      '/v1/legal-documents?q=%F0%9F%98',
      '/v1/legal-documents/vb_%00',
    ];
    for (const p of paths) {
      const res = await get(p);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.success).toBe(false);
    }
  });
});

describe('validate: a declared integer range', () => {
  let hi: Harness;
  let k: string;
  beforeAll(async () => {
    hi = await startHarness((raw) => {
      const legal = raw.datasets.datasets.find((d) => d.path === 'legal-documents')!;
      legal.list.params.year_from = { type: 'integer', min: 1 };
      legal.list.params.year_to = { type: 'integer', min: 1 };
      legal.list.ranges.push({ from: 'year_from', to: 'year_to' });
    });
    k = (await hi.account('enterprise')).key;
  });
  afterAll(() => hi.close());
  const at = (path: string) => request(hi.gw.app).get(path).set('X-Api-Key', k);

  it('compares the bounds as numbers, so 9 to 10 passes and 10 to 9 does not', async () => {
    expect((await at('/v1/legal-documents?q=luat&year_from=9&year_to=10')).status).toBe(200);
    const res = await at('/v1/legal-documents?q=luat&year_from=10&year_to=9');
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'invalid_request' });
    expect(res.body.message).toContain('lớn hơn year_to (9)');
  });
});
