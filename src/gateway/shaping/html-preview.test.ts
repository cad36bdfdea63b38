import { parseDocument } from 'htmlparser2';
import { htmlHasText, htmlPreview } from './html-preview';

const textOf = (html: string): string => {
  const doc = parseDocument(html);
  const walk = (n: { data?: string; children?: unknown[] }): string =>
    (n.data ?? '') + (n.children ?? []).map((c) => walk(c as never)).join('');
  return walk(doc);
};

describe('htmlPreview', () => {
  it('never shows the whole of a document whose text fits in the limit, but its first half', () => {
    expect(htmlPreview('<p>Điều 1. <b>Phạm vi</b></p>', 800)).toBe('<p>Điều 1. <b>…</b></p>');
    expect(htmlPreview('<p>Một hai</p>', 7)).toBe('<p>Một…</p>');
    expect(htmlPreview('<p>A</p>', 800)).toBe('<p>…</p>');
  });

  it('cuts a document one character longer than the limit at the limit, the mark of the cut one of its characters', () => {
    expect(htmlPreview('<p>Một hai</p>', 6)).toBe('<p>Một h…</p>');
  });

  it('never shows more characters of text than the limit, the mark included', () => {
    const words = Array.from({ length: 400 }, (_, i) => `Điều ${i} 😀`).join(' ');
    for (const limit of [1, 2, 13, 800]) {
      const text = Array.from(textOf(htmlPreview(`<div><p>${words}</p><p>${words}</p></div>`, limit)));
      expect(text.length).toBeLessThanOrEqual(limit);
      expect(text.length).toBeGreaterThanOrEqual(limit - 1);
      expect(text.at(-1)).toBe('…');
    }
  });

  it('treats a document whose text ends at the limit as fitting, and one a character longer as cut', () => {
    expect(htmlPreview('<p>abcde</p><p>f</p>', 6)).toBe('<p>abc…</p>');
    expect(htmlPreview('<p>abcde</p><p>fg</p>', 6)).toBe('<p>abcde</p><p>…</p>');
    expect(htmlPreview('<p>abcde</p><p>f</p>  ', 6)).toBe('<p>abc…</p>');
  });

  it('shows no text at all with a limit of nought', () => {
    expect(htmlPreview('<p>Điều 1</p>', 0)).toBe('<p></p>');
  });

  it('counts half of the visible text only: white space after or around it does not let the whole through', () => {
    expect(htmlPreview(`<p>Điều 1</p>\n${' '.repeat(20)}`, 800)).toBe('<p>Đi…</p>');
    expect(htmlPreview('<p>Hello</p>\n\n', 5)).toBe('<p>He…</p>');
    expect(htmlPreview('<p>Hello</p>\n\n<script>var later = "text";</script>', 5)).toBe('<p>He…</p>');
    expect(htmlPreview('<div>\n    <p>Một   hai</p>\n</div>', 800)).toBe('<div>\n    <p>Một…</p></div>');
  });

  it('drops embedded content, which would show a scanned or embedded document whole', () => {
    expect(htmlPreview('<p><img src="scan-1.png"><img src="scan-2.png"></p>', 800)).toBe('<p></p>');
    expect(
      htmlPreview('<iframe src="a.pdf"></iframe><object data="b.pdf">Văn bản</object><p>Điều 1</p>', 800),
    ).toBe('<p>Đi…</p>');
  });

  it('leaves a document without text as it is', () => {
    expect(htmlPreview('<p></p><br>', 800)).toBe('<p></p><br>');
  });

  it('cuts the text at the limit and closes every open tag in order', () => {
    const out = htmlPreview('<div><p>Một hai ba <b>bốn năm sáu</b> bảy</p><p>tám</p></div>', 13);
    expect(out).toBe('<div><p>Một hai ba <b>b…</b></p></div>');
  });

  it('keeps entities escaped and never splits a character', () => {
    const out = htmlPreview('<p>A &amp; B &lt;C&gt; 😀😀😀</p>', 12);
    expect(out).toBe('<p>A &amp; B &lt;C&gt; 😀…</p>');
    expect(textOf(out)).toBe('A & B <C> 😀…');
  });

  it('drops scripts and event handlers from the preview', () => {
    const out = htmlPreview(
      '<p onclick="x()">Hi<script>alert(1)</script> there</p><a href="javascript:x">y</a><p>và phần còn lại</p>',
      9,
    );
    expect(out).toBe('<p>Hi there</p><a>…</a>');
  });

  it('keeps layout attributes and plain links, and drops every other attribute', () => {
    const out = htmlPreview(
      '<table border="1" style="position:fixed" id="config"><tr><td colspan="2" class="c" name="x">' +
        '<a href="https://vbpl.vn/a?b=1&amp;c=2" target="_blank" title="Luật">Điều một</a> và ' +
        '<a href="#dieu2">Điều hai</a></td></tr></table>',
      800,
    );
    expect(out).toBe(
      '<table border="1"><tr><td colspan="2">' +
        '<a href="https://vbpl.vn/a?b=1&amp;c=2" title="Luật">Điều một</a> v…</td></tr></table>',
    );
    expect(htmlPreview('<p><a href="#d2">Điều hai</a> <a href="/vb/1">Luật một</a> và còn nữa</p>', 12)).toBe(
      '<p><a href="#d2">Điều hai</a> <a href="/vb/1">Lu…</a></p>',
    );
  });

  it('shows no more tooltip text in all than its own length, so titles cannot carry the document past the cut', () => {
    const title = 'Đ'.repeat(100);
    const spans = `<span title="${title}">b</span>`.repeat(5);
    const out = htmlPreview(`<p>${spans}${'c'.repeat(1000)}</p>`, 300);
    expect(out.match(/title="/g)).toHaveLength(3);
    expect(out).toBe(
      `<p>${`<span title="${title}">b</span>`.repeat(3)}<span>b</span><span>b</span>${'c'.repeat(294)}…</p>`,
    );
    expect(htmlPreview(`<p title="${'t'.repeat(50)}">Một hai</p>`, 10)).toBe('<p>Một…</p>');
    expect(
      htmlPreview('<p><abbr title="Luật">L</abbr> và <abbr title="Nghị định">NĐ</abbr> nữa</p>', 800),
    ).toBe('<p><abbr title="Luật">L</abbr> và <abbr>N…</abbr></p>');
  });

  it('drops links a browser would run, however the scheme is written, and what submits, takes input, loads or redirects', () => {
    const links = [
      'java&#9;script:alert(1)',
      '&#1;javascript:alert(1)',
      ' JAVASCRIPT:alert(1)',
      'java\nscript:alert(1)',
      'javascript&colon;alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
    ];
    for (const href of links) {
      expect(htmlPreview(`<p><a href="${href}">Điều 1 và 2</a></p>`, 800)).toBe('<p><a>Điều…</a></p>');
    }
    const out = htmlPreview(
      '<meta http-equiv="refresh" content="0;url=https://evil.example"><base href="https://evil.example/">' +
        '<form action="https://evil.example/"><button formaction="https://evil.example/">Gửi đi</button></form>',
      800,
    );
    expect(out).toBe('Gử…');
    expect(
      htmlPreview(
        '<form><p>Điều 1 <input type="submit" value="x"> và <select><option>Một</option></select></p></form>',
        13,
      ),
    ).toBe('<p>Điều 1  và M…</p>');
    expect(htmlPreview('<p constructor="1" __proto__="2" toString="3">Điều 1 và 2</p>', 800)).toBe(
      '<p>Điều…</p>',
    );
  });

  it('reads <script/> and <style/> as a browser does, opening what no reader sees, so their text stays out', () => {
    expect(htmlPreview('<p>A</p><script/>var token="abc";</script><p>B</p><p>và phần còn lại</p>', 6)).toBe(
      '<p>A</p><p>B</p><p>và…</p>',
    );
    expect(htmlPreview('<p>A</p><style/>p{}</style><p>Bốn năm sáu</p>', 4)).toBe('<p>A</p><p>Bố…</p>');
    expect(htmlHasText('<script/>var token="abc";</script><style/>p{}</style>')).toBe(false);
    expect(htmlPreview('<p>Dòng 1<br/>Dòng 2</p><p>Dòng 3 và phần còn lại</p>', 12)).toBe(
      '<p>Dòng 1<br>Dòng…</p>',
    );
  });

  it('leaves out what would turn the page showing it: its root, its head, a plaintext that never closes', () => {
    const out = htmlPreview(
      '<html dir="rtl" title="x"><head><title>Tiêu đề</title><style>p{}</style></head><body dir="rtl" lang="ar"><plaintext>Điều 1 quy định chung và phạm vi',
      12,
    );
    expect(out).not.toMatch(/<(html|head|title|body|plaintext)\b/);
    expect(out).not.toContain('Tiêu đề');
    expect(out).toContain('Điều 1');
    expect(htmlHasText('<html><head><title>Tiêu đề</title></head><body> </body></html>')).toBe(false);
    // HTML may leave out </head> and <body>: what follows is the page's text, as a browser shows it.
    const unclosed =
      '<html><head><meta charset="utf-8"><title>Luật 45</title><p>Điều 1 quy định chung</p></html>';
    expect(htmlHasText(unclosed)).toBe(true);
    expect(htmlPreview(unclosed, 8)).toBe('<p>Điều 1…</p>');
  });

  it('handles void elements and unclosed tags', () => {
    expect(htmlPreview('<p>Dòng 1<br>Dòng 2<img src="a.png"><p>Dòng 3', 17)).toBe(
      '<p>Dòng 1<br>Dòng 2</p><p>Dòng…</p>',
    );
  });
});

describe('htmlHasText', () => {
  it('finds text in a document, however deep and late', () => {
    expect(htmlHasText('<div><p> </p><p><b>Điều 1</b></p></div>')).toBe(true);
    expect(htmlHasText('Văn bản không có thẻ')).toBe(true);
    expect(htmlHasText('<p>&amp;</p>')).toBe(true);
  });

  it('finds embedded content a document is made of, a scan or a PDF, without any text', () => {
    expect(htmlHasText('<p><img src="scan.png"></p>')).toBe(true);
    expect(htmlHasText('<iframe src="a.pdf"></iframe>')).toBe(true);
    expect(htmlHasText('<div> <embed src="a.pdf"> </div>')).toBe(true);
  });

  it('finds none in tags, white space, no-break spaces, scripts and styles only', () => {
    expect(htmlHasText('')).toBe(false);
    expect(htmlHasText('<p> </p>\n<p>&nbsp;</p><br><hr>')).toBe(false);
    expect(htmlHasText('<script>var a = "text";</script><style>p { color: red }</style>')).toBe(false);
    expect(htmlHasText('<!-- ghi chú --><p></p>')).toBe(false);
  });
});
