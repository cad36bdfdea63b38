import request from 'supertest';
import { startHarness } from '../../../test/support/gateway-harness';
import type { Harness } from '../../../test/support/gateway-harness';
import { everyDataset } from '../../../test/support/dataset-pages';

let h: Harness;
beforeAll(async () => {
  h = await startHarness((raw) => {
    // A limit that cuts the stub's long text within a word, so the mark of the cut must fit in it.
    raw.gateway.preview_chars = 799;
    raw.datasets.datasets.push({
      ...raw.datasets.datasets[0]!,
      path: 'premium-docs',
      id_prefix: 'pd_',
      min_plan: 'starter',
    });
  });
});
afterAll(() => h.close());

describe('plan-gate: happy path', () => {
  it('serves relations to Pro', async () => {
    const { key } = await h.account('pro');
    const res = await request(h.gw.app).get('/v1/legal-documents/vb_1/relations').set('X-Api-Key', key);
    expect(res.status).toBe(200);
    expect(res.body.data.cites).toEqual([{ id: 'vb_2' }]);
  });

  it('lists only the datasets of the caller plan in /v1/datasets', async () => {
    const free = (await h.account('free')).key;
    const starter = (await h.account('starter')).key;
    const paths = async (key: string) => (await everyDataset(h.gw.app, key)).map((d) => d.path);
    const f = await paths(free);
    const s = await paths(starter);
    expect(f).not.toContain('/v1/premium-docs');
    expect(s).toContain('/v1/premium-docs');
    expect(f).toContain('/v1/legal-documents');
  });
});

describe('plan-gate: errors', () => {
  it('answers 403 plan_required with upgrade_url for relations below Pro, naming the plan as customers know it, and costs nothing', async () => {
    const { key } = await h.account('starter');
    const res = await request(h.gw.app).get('/v1/legal-documents/vb_1/relations').set('X-Api-Key', key);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      success: false,
      code: 'plan_required',
      message: 'Endpoint này yêu cầu gói Pro trở lên.',
      upgrade_url: 'https://example.vn/pricing',
    });
    expect(res.headers['x-quota-remaining']).toBe('20000');
  });

  it('answers 403 plan_required for a dataset above the plan', async () => {
    const { key } = await h.account('free');
    const res = await request(h.gw.app).get('/v1/premium-docs?q=luat').set('X-Api-Key', key);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('plan_required');
  });
});

describe('field locking', () => {
  it('gives Free a balanced HTML preview of content_html and names every locked field', async () => {
    const { key } = await h.account('free');
    const res = await request(h.gw.app).get('/v1/legal-documents/vb_5').set('X-Api-Key', key);
    expect(res.status).toBe(200);
    const html: string = res.body.data.content_html;
    expect(html.length).toBeLessThan(1400);
    expect(html.endsWith('…</b></p>') || html.endsWith('…</p>')).toBe(true);
    // Read as a user would: tags stripped, the three escapes the preview writes undone.
    const text = html
      .replace(/<[^>]*>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    const previewChars = h.config.raw.gateway.preview_chars;
    expect(Array.from(text).length).toBeLessThanOrEqual(previewChars);
    expect(Array.from(text).length).toBeGreaterThan(previewChars - 20);
    expect(res.body.data.content_en_html).toBeUndefined();
    expect(res.body.data.replaced_by).toBeUndefined();
    expect(res.body.meta.locked_fields).toEqual([
      'content_html',
      'content_en_html',
      'replaced_by',
      'replaces',
    ]);
    expect(res.body.meta.upgrade_url).toBe('https://example.vn/pricing');
  });

  it('withholds from Free a locked full text that is no string, of which no preview can be made, rather than serve it whole', async () => {
    const { key } = await h.account('free');
    const res = await request(h.gw.app).get('/v1/legal-documents/vb_5_objtext').set('X-Api-Key', key);
    expect(res.status).toBe(200);
    expect(Object.hasOwn(res.body.data, 'content_html')).toBe(false);
    expect(res.body.meta.locked_fields).toContain('content_html');
  });

  it('gives Starter the full text but withholds the Pro fields', async () => {
    const { key } = await h.account('starter');
    const res = await request(h.gw.app).get('/v1/legal-documents/vb_5').set('X-Api-Key', key);
    expect(res.body.data.content_html.length).toBeGreaterThan(3000);
    expect(res.body.data.content_en_html).toBeUndefined();
    expect(res.body.meta.locked_fields).toEqual(['content_en_html', 'replaced_by', 'replaces']);
  });

  it('gives Pro every field and no locked fields', async () => {
    const { key } = await h.account('pro');
    const res = await request(h.gw.app).get('/v1/legal-documents/vb_5').set('X-Api-Key', key);
    expect(res.body.data.content_en_html).toBe('<p>English</p>');
    expect(res.body.data.replaces).toEqual([]);
    expect(res.body.meta.locked_fields).toEqual([]);
  });

  it('names the locked fields on list responses too', async () => {
    const { key } = await h.account('free');
    const res = await request(h.gw.app).get('/v1/legal-documents?q=luat').set('X-Api-Key', key);
    expect(res.body.meta.locked_fields).toContain('content_html');
  });
});
