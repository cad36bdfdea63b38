import { parseDocument } from 'htmlparser2';
import { htmlPreview } from './html-preview';

const textOf = (html: string): string => {
  const doc = parseDocument(html);
  const walk = (n: { data?: string; children?: unknown[] }): string =>
    (n.data ?? '') + (n.children ?? []).map((c) => walk(c as never)).join('');
  return walk(doc);
};

describe('htmlPreview', () => {
  it('keeps a short document whole', () => {
    expect(htmlPreview('<p>Điều 1. <b>Phạm vi</b></p>', 800)).toBe('<p>Điều 1. <b>Phạm vi</b></p>');
  });

  it('cuts the text at the limit and closes every open tag in order', () => {
    const out = htmlPreview('<div><p>Một hai ba <b>bốn năm sáu</b> bảy</p><p>tám</p></div>', 13);
    expect(out).toBe('<div><p>Một hai ba <b>bố…</b></p></div>');
  });

  it('keeps entities escaped and never splits a character', () => {
    const out = htmlPreview('<p>A &amp; B &lt;C&gt; 😀😀😀</p>', 12);
    expect(out).toBe('<p>A &amp; B &lt;C&gt; 😀😀…</p>');
    expect(textOf(out)).toBe('A & B <C> 😀😀…');
  });

  it('drops scripts and event handlers from the preview', () => {
    const out = htmlPreview(
      '<p onclick="x()">Hi<script>alert(1)</script> there</p><a href="javascript:x">y</a>',
      100,
    );
    expect(out).toBe('<p>Hi there</p><a>y</a>');
  });

  it('handles void elements and unclosed tags', () => {
    expect(htmlPreview('<p>Dòng 1<br>Dòng 2<img src="a.png"><p>Dòng 3', 100)).toBe(
      '<p>Dòng 1<br>Dòng 2<img src="a.png"></p><p>Dòng 3</p>',
    );
  });
});
