import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { Db } from '../db/db';
import type { Logger } from '../util/logger';
import { datasetRouter } from './dataset-router';
import type { DatasetSpec } from './dataset-spec';
import type { IdentityCheck } from './verify-identity';
import { UpstreamError, unknownEndpoint } from './upstream-error';
import { mountUpstreamMetrics } from './upstream-metrics';

export interface UpstreamAppOptions {
  db: Db;
  logger: Logger;
  datasets: readonly DatasetSpec[];
  /**
   * For services that load something before they can answer (reference data, an in-memory index):
   * called by /healthz and before every dataset request, so it should be memoised. Until it
   * resolves, /healthz does not answer 200 (readiness) and requests wait; a rejection is a 503 on
   * /healthz and a 500 on the request, and the next call may try again.
   */
  ready?: () => Promise<void>;
  /**
   * Checks the gateway's identity assertion on every dataset request (not /healthz, /livez,
   * /metrics); a request without a valid one gets 401, so nobody who reaches the upstream directly
   * gets data without a key, a plan and a quota. Unset: the network is the only guard.
   */
  identity?: IdentityCheck;
}

/** The gateway's X-Request-Id (one it made or checked), as far as a log line should carry it. */
const requestIdOf = (req: Request): string | undefined => {
  const id = req.headers['x-request-id'];
  return typeof id === 'string' ? id.slice(0, 128) : undefined;
};

/** An upstream service: GET-only dataset routes, /healthz (ready), /livez (alive), and contract-shaped errors. */
export function createUpstreamApp(opts: UpstreamAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  mountUpstreamMetrics(app, opts.datasets);
  // The gateway's access line has every call with its req_id; this one has the upstream's side of
  // those that did not end in 200, under the same req_id, so the two can be put side by side. A
  // caller's unknown id or bad parameter (not_found, invalid_request) is routine: at debug, not info.
  // A path or a parameter this service does not serve (config drift) stays at info.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    res.on('finish', () => {
      if (res.statusCode < 400) return;
      const routine = res.locals.code === 'not_found' || res.locals.code === 'invalid_request';
      opts.logger[routine ? 'debug' : 'info'](
        {
          req_id: requestIdOf(req),
          path: req.path,
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
          ...(typeof res.locals.refused === 'string' ? { identity_refused: res.locals.refused } : {}),
        },
        'upstream answer',
      );
    });
    next();
  });
  // Liveness: the process answers. Not the database, whose outage a restart does not cure.
  app.get('/livez', (_req: Request, res: Response) => {
    res.json({ status: 'ok' });
  });
  app.get('/healthz', async (_req: Request, res: Response) => {
    try {
      await opts.db.query('SELECT 1');
      await opts.ready?.();
      res.json({ status: 'ok' });
    } catch {
      res.status(503).json({ status: 'unavailable' });
    }
  });
  const identity = opts.identity;
  if (identity)
    app.use(async (req: Request, res: Response, next: NextFunction) => {
      const verdict = await identity(req.headers.authorization);
      if (verdict === true) return next();
      res.locals.refused = verdict === false ? 'refused' : verdict.refused;
      res
        .status(401)
        .json({ code: 'unauthorized', message: 'Thiếu hoặc sai xác nhận danh tính của gateway.' });
    });
  const ready = opts.ready;
  if (ready)
    app.use(async (_req: Request, _res: Response, next: NextFunction) => {
      await ready();
      next();
    });
  for (const spec of opts.datasets) app.use(datasetRouter(opts.db, spec));
  app.use((_req: Request, _res: Response, next: NextFunction) => next(unknownEndpoint()));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof UpstreamError) {
      res.locals.code = err.code;
      const body: Record<string, string> = { code: err.code, message: err.message };
      if (err.param) body.param = err.param;
      res.status(err.status).json(body);
      return;
    }
    opts.logger.error({ err, req_id: requestIdOf(req), path: req.path }, 'upstream request failed');
    res.status(500).json({ code: 'internal_error', message: 'Lỗi hệ thống.' });
  });
  return app;
}
