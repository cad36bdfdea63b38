import { guardFullText } from './full-text-guard';

const rule = { name: 'content_html', preview: true, previewChars: 20 };
const LONG = `<p>${'Điều khoản dài. '.repeat(50)}</p>`;

describe('the full-text guard', () => {
  it('returns the very value it was given when no full text is there, so shipped answers are not copied', () => {
    const row = { id: 'vb_1', status: { id: 1, name: 'Còn hiệu lực' }, list: [{ id: 'vb_2' }] };
    expect(guardFullText(row, rule, 0)).toBe(row);
  });

  it('previews the field from the level asked and leaves the one above it, without touching the input', () => {
    const record = { content_html: LONG, replaced_by: [{ id: 'vb_2', content_html: LONG }] };
    const out = guardFullText(record, rule, 1) as typeof record;
    expect(out.content_html).toBe(LONG);
    expect(out.replaced_by[0]!.content_html.length).toBeLessThan(100);
    expect(record.replaced_by[0]!.content_html).toBe(LONG);
  });

  it('leaves a null full text as it is: no text to withhold', () => {
    const row = { id: 'vb_1', content_html: null, a: { content_html: null } };
    expect(guardFullText(row, rule, 0)).toBe(row);
  });

  it('removes what cannot be previewed, and a field without a preview', () => {
    expect(guardFullText({ content_html: { pages: [LONG] } }, rule, 0)).toEqual({});
    expect(guardFullText({ a: { content_html: LONG } }, { ...rule, preview: false }, 0)).toEqual({ a: {} });
  });

  it('stops at a depth no dataset reaches, so a record nested past the stack answers', () => {
    let deep: unknown = { content_html: LONG };
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(guardFullText(deep, rule, 0)).toBe(deep);
  });
});
