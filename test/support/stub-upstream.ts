import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

export interface SeenRequest {
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
}

export const LONG_HTML =
  '<h1>Chương I &amp; QUY ĐỊNH CHUNG</h1>' +
  Array.from(
    { length: 60 },
    (_, i) =>
      `<p>Điều ${i + 1}. Phạm vi điều chỉnh của văn bản về đất đai, <b>khoản ${i + 1}</b> áp dụng cho mọi tổ chức.</p>`,
  ).join('');

/** A full text with nothing to read: empty paragraphs, a no-break space, a script. */
const TAGS_ONLY = '<div class="noi-dung"><p> </p>\n<p>&nbsp;</p><br><script>var x = 1;</script></div>';

/** One legal-documents list row as an upstream returns it. */
export function legalRow(n: number): Record<string, unknown> {
  return {
    id: `vb_${n}`,
    code: `${n}/2024/NĐ-CP`,
    name: `Nghị định số ${n} về đất đai`,
    database: 'vbqppl',
    status: { id: 1, name: 'Còn hiệu lực' },
    issued_date: '2024-01-15',
  };
}

/**
 * A fake upstream that speaks DESIGN §4 for any dataset path, with ids that trigger failures:
 * *_missing → 404, *_boom → 500, *_slow → answers after 3 s, *_held → answers at release() (as the id without `_held` would), *_shapeless → 200 without `data`,
 * *_nocode → 404 with an HTML page (a path it does not serve), *_deep → a record nested deeper than
 * JSON.stringify goes, *_huge → a 17 MB record, *_notext → content_html null, *_objtext → content_html an object (off contract), *_blank → content_html of white space, *_tagsonly → content_html of tags, blanks and a script only, *_scan → content_html of page images only; relations of *_leaky → plan-gated fields in the sub-resource, detail of *_leaky → a related document with its full text in replaced_by, of *_rows →
 * an array as `data`; q=bad → 422 (with param), q=page422 → 422 with an HTML page, q=other422 → 422
 * with another code, q=bad400 → 400 (outside the contract), q=junkrows → rows that are not objects, q=boom → 500, q=gone → 404 (a list the upstream
 * does not serve), q=garbage → 200 not JSON, q=shapeless → 200 JSON without `data` and `total`,
 * q=toomany → 25 rows more than per_page, q=leaky → rows with the full text and plan-gated fields, q=nulltext → rows with content_html null, q=escaped → a row whose content_html key is written with an escape, q=negative / q=fraction → a total that is no count.
 */
export async function startStubUpstream(host = '127.0.0.1'): Promise<{
  url: string;
  seen: SeenRequest[];
  /** Answers the requests for *_held ids made so far. */
  release(): void;
  close(): Promise<void>;
}> {
  const held: (() => void)[] = [];
  const seen: SeenRequest[] = [];
  const app = express();
  app.use((req, _res, next) => {
    seen.push({ path: req.path, query: req.query as Record<string, string>, headers: req.headers });
    next();
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get(/^\/(.+)\/_stats$/, (_req, res) => {
    res.json({ total: 1000 });
  });
  app.get(/^\/([a-z0-9-]+(?:\/[a-z0-9-]+)?)$/, (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q : '';
    if (q === 'bad')
      return void res
        .status(422)
        .json({ code: 'invalid_request', message: 'issued_from after issued_to', param: 'issued_from' });
    if (q === 'page422') return void res.status(422).type('html').send('<h1>Unprocessable</h1>');
    if (q === 'other422') return void res.status(422).json({ code: 'too_busy', message: 'later' });
    if (q === 'bad400')
      return void res
        .status(400)
        .json({ code: 'invalid_request', message: 'issued_from', param: 'issued_from' });
    if (q === 'junkrows') return void res.json({ data: [1, null, legalRow(1)], total: 3 });
    if (q === 'negative') return void res.json({ data: [], total: -5 });
    if (q === 'fraction') return void res.json({ data: [], total: 2.5 });
    if (q === 'boom') return void res.status(500).json({ code: 'internal' });
    if (q === 'gone') return void res.status(404).json({ code: 'not_found' });
    if (q === 'garbage') return void res.status(200).send('not json');
    if (q === 'shapeless') return void res.json({ rows: [] });
    // The field's name written with an escape, as any JSON encoder may: it is the same field.
    if (q === 'escaped')
      return void res
        .type('json')
        .send(`{"data":[{"id":"vb_1","content\\u005fhtml":${JSON.stringify(LONG_HTML)}}],"total":1}`);
    const page = Number(req.query.page ?? 1);
    const perPage = Number(req.query.per_page ?? 20);
    const total = q === 'few' ? 3 : 1000;
    const start = (page - 1) * perPage;
    const length = q === 'toomany' ? perPage + 25 : Math.max(0, Math.min(perPage, total - start));
    const leaky =
      q === 'leaky'
        ? { content_html: LONG_HTML, content_en_html: '<p>English</p>' }
        : q === 'nulltext'
          ? { content_html: null }
          : {};
    const rows = Array.from({ length }, (_, i) => ({ ...legalRow(start + i + 1), ...leaky }));
    res.json({ data: rows, total });
  });
  app.get(/^\/([a-z0-9-]+)\/([^/]+)\/relations$/, (req, res) => {
    const id = (req.params as Record<string, string>)[1]!;
    if (id.endsWith('_rows')) return void res.json({ data: [{ id: 'vb_2' }] });
    const gated = id.endsWith('_leaky') ? { content_html: LONG_HTML, content_en_html: '<p>English</p>' } : {};
    res.json({ data: { replaces: [], replaced_by: [], cites: [{ id: 'vb_2' }], cited_by: [], ...gated } });
  });
  app.get(/^\/([a-z0-9-]+)\/([^/]+)$/, (req, res) => {
    const id = (req.params as Record<string, string>)[1]!;
    if (id.endsWith('_missing')) return void res.status(404).json({ code: 'not_found' });
    if (id.endsWith('_boom')) return void res.status(500).json({ code: 'internal' });
    if (id.endsWith('_shapeless')) return void res.json({ record: { id } });
    if (id.endsWith('_nocode')) return void res.status(404).type('html').send('<h1>Cannot GET</h1>');
    if (id.endsWith('_huge'))
      return void res
        .type('json')
        .send(`{"data":{"id":"${id}","content_html":"${'x'.repeat(17 * 2 ** 20)}"}}`);
    if (id.endsWith('_deep'))
      return void res
        .type('json')
        .send(`{"data":{"id":"${id}","n":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`);
    // A held id's answer is the one of the id without `_held` (vb_3_notext_held: no full text).
    const kind = id.replace(/_held$/, '');
    const send = () =>
      res.json({
        data: {
          ...legalRow(Number(id.replace(/\D/g, '')) || 7),
          id,
          signer: 'Nguyễn Văn A',
          content_html: kind.endsWith('_notext')
            ? null
            : kind.endsWith('_objtext')
              ? { pages: [LONG_HTML] }
              : kind.endsWith('_blank')
                ? ' \n '
                : kind.endsWith('_tagsonly')
                  ? TAGS_ONLY
                  : kind.endsWith('_scan')
                    ? '<div><img src="trang-1.png"><img src="trang-2.png"></div>'
                    : LONG_HTML,
          content_en_html: '<p>English</p>',
          // A related document with its own full text (an upstream outside what the shipped ones send).
          replaced_by: kind.endsWith('_leaky') ? [{ ...legalRow(9), content_html: LONG_HTML }] : [],
          replaces: [],
        },
      });
    if (id.endsWith('_slow')) setTimeout(send, 3000).unref();
    else if (id.endsWith('_held')) held.push(send);
    else send();
  });
  const server: Server = createServer(app);
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    seen,
    release: () => {
      for (const send of held.splice(0)) send();
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
