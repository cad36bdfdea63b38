import express from 'express';
import type { Request, Response } from 'express';
import absolutePath from 'swagger-ui-dist/absolute-path.js';
import type { RuntimeConfig } from '../config/compile-config';
import type { ApiError } from '../errors/api-error';
import { renderError } from '../errors/render-error';
import { queryKeyRefusal } from '../gateway/policies/authenticate';
import { requestIdOf } from '../gateway/policies/request-id';
import { openApiFor } from './build-openapi';
import { DOCS_CSP, DOCS_HTML, DOCS_INIT_JS } from './docs-page';

/** The files of swagger-ui-dist the page uses; the package's own index.html (a demo) stays hidden. */
const ASSETS = new Set([
  '/swagger-ui.css',
  '/swagger-ui.css.map',
  '/swagger-ui-bundle.js',
  '/swagger-ui-bundle.js.map',
  '/favicon-16x16.png',
  '/favicon-32x32.png',
]);

function sendText(res: Response, type: string, body: string, extra: Record<string, string> = {}): void {
  res.setHeader('Content-Type', type);
  for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  res.send(body);
}

/**
 * GET /v1/openapi.json and GET /docs (+ its assets under /docs/). Mounted before the gateway
 * pipeline: no key, never metered. The document is built once per config object, so a hot reload
 * (a new RuntimeConfig) shows at once and costs one build.
 */
export function createDocsRouter(
  getConfig: () => RuntimeConfig,
  admitIp: (req: Request) => Promise<ApiError | undefined>,
): express.Router {
  const router = express.Router();
  // These routes skip the pipeline, but still carry a request id and nosniff like every response
  // (a 304 included), and count in the per-IP volume: a 200 KB document is no free request.
  router.use(['/v1/openapi.json', '/docs'], async (req: Request, res: Response, next) => {
    res.setHeader('X-Request-Id', requestIdOf(req));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const throttled = await admitIp(req);
    if (throttled) return renderError(res, throttled);
    // A key in a URL is refused here as on every other route (API reference, Authentication), so a
    // link with one in it fails before it is bookmarked or shared.
    const search = req.originalUrl.indexOf('?');
    const refused =
      search < 0 ? undefined : queryKeyRefusal(new URLSearchParams(req.originalUrl.slice(search + 1)));
    if (refused) return renderError(res, refused);
    next();
  });
  router.get('/v1/openapi.json', (req: Request, res: Response) => {
    const { json, etag } = openApiFor(getConfig());
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'no-cache');
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    sendText(res, 'application/json; charset=utf-8', json);
  });
  router.get('/docs', (_req: Request, res: Response) => {
    sendText(res, 'text/html; charset=utf-8', DOCS_HTML, {
      'Content-Security-Policy': DOCS_CSP,
      'Cache-Control': 'no-cache',
      'Referrer-Policy': 'no-referrer',
    });
  });
  router.get('/docs/init.js', (_req: Request, res: Response) => {
    sendText(res, 'text/javascript; charset=utf-8', DOCS_INIT_JS, { 'Cache-Control': 'no-cache' });
  });
  const assets = express.static(absolutePath(), { index: false, redirect: false, maxAge: '1d' });
  router.use('/docs', (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (!ASSETS.has(req.path)) return next();
    return assets(req, res, next);
  });
  return router;
}
