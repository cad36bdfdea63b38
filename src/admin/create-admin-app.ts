import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../errors/api-error';
import { logFailure, renderError, toApiError } from '../errors/render-error';
import { accountRoutes } from './account-routes';
import { createAdminKit } from './admin-kit';
import type { AdminDeps } from './admin-kit';
import type { Logger } from '../util/logger';
import { creditRoutes } from './credit-routes';
import { keyRoutes } from './key-routes';
import { requestError } from './request-errors';
import type { MethodsAnswer } from '../gateway/client-error';
import { OPS_PATHS } from '../observability/ops-routes';
import { lacksHost, NO_HOST_MESSAGE } from '../util/host-header';

const BODY_LIMIT = '64kb';

/** The admin API's paths and their methods (DESIGN §6), as the route files serve them. */
const ADMIN_METHODS: readonly (readonly [string, string])[] = [
  ['/accounts', 'GET, POST'],
  ['/accounts/:id', 'GET, PATCH'],
  ['/accounts/:id/keys', 'GET, POST'],
  ['/accounts/:id/credits', 'POST'],
  ['/keys/:id', 'DELETE'],
];
const WRONG_METHOD = 'Phương thức không được hỗ trợ cho đường dẫn này.';

/** The route of a known path for the methods it does not take: 405 and what it takes. */
const refuseMethod =
  (allow: string): express.RequestHandler =>
  () => {
    throw new ApiError('method_not_allowed', { message: WRONG_METHOD, headers: { Allow: allow } });
  };

/** What the admin port answers a method none of its paths takes (CONNECT): every method it serves. */
export const ADMIN_PORT_METHODS: MethodsAnswer = {
  allow: [...new Set(ADMIN_METHODS.flatMap(([, allow]) => allow.split(', ')))].join(', '),
  message: 'Phương thức không được hỗ trợ.',
};

/**
 * One line per admin request, refused ones included: who (the token's `sub`) changed which account
 * or key, and how it ended. Never the body: it holds e-mail addresses, and answers hold new keys.
 */
function auditLine(logger: Logger): express.RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.on('close', () =>
      logger.info(
        {
          admin_subject: (res.locals.adminSubject as string | null | undefined) ?? null,
          method: req.method,
          path: req.originalUrl.split('?', 1)[0],
          // A caller gone before the head was written got no status.
          status: res.headersSent ? res.statusCode : null,
          completed: res.writableFinished,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'admin request',
      ),
    );
    next();
  };
}

/** The admin API of DESIGN §6, on the admin port only; the billing system drives accounts through it. */
export function createAdminApp(deps: AdminDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Answers carry new API keys and account data: no cache between here and the operator keeps them.
  app.use((_req, res, next) => {
    res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    next();
  });
  app.set('etag', false);
  app.use('/admin', auditLine(deps.logger));
  app.use((req, _res, next) => {
    if (lacksHost(req)) throw new ApiError('invalid_request', { message: NO_HOST_MESSAGE });
    next();
  });
  const admin = express.Router();
  admin.use(async (req, res, next) => {
    const token = await deps.verify(req.headers.authorization);
    res.locals.adminSubject = typeof token.sub === 'string' ? token.sub : null;
    next();
  });
  admin.use(express.json({ limit: BODY_LIMIT }));
  // A body of another type is left unread, and the schema would then say every field is missing.
  admin.use((req, _res, next) => {
    const sent =
      req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (sent && req.body === undefined)
      throw new ApiError('invalid_request', {
        message: 'Nội dung yêu cầu phải là JSON (Content-Type: application/json).',
      });
    next();
  });

  const kit = createAdminKit(deps);
  admin.use(accountRoutes(kit), keyRoutes(kit), creditRoutes(kit));
  // A known path asked with a method it does not take gets 405 and what it takes (RFC 9110
  // §15.5.6), not a 404 that reads as an unknown account or key. HEAD is served by each GET route.
  for (const [path, allow] of ADMIN_METHODS) admin.all(path, refuseMethod(allow));
  app.use('/admin', admin);
  // The operational routes answer GET and HEAD before this app (ops-routes.ts); other methods land here.
  for (const path of OPS_PATHS) app.all(path, refuseMethod('GET, HEAD'));
  app.use((_req, _res, next) => next(new ApiError('not_found')));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = requestError(err, BODY_LIMIT) ?? toApiError(err, 'service_unavailable');
    if (e.code === 'internal_error' || e.code === 'service_unavailable')
      logFailure(deps.logger, err, 'admin API error');
    renderError(res, e);
  });
  return app;
}
