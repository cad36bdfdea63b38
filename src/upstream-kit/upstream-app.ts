import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { Db } from '../db/db';
import type { Logger } from '../util/logger';
import { datasetRouter } from './dataset-router';
import type { DatasetSpec } from './dataset-spec';
import { UpstreamError } from './upstream-error';

export interface UpstreamAppOptions {
  db: Db;
  logger: Logger;
  datasets: readonly DatasetSpec[];
}

/** An upstream service: GET-only dataset routes, /healthz, and contract-shaped errors. */
export function createUpstreamApp(opts: UpstreamAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/healthz', async (_req: Request, res: Response) => {
    try {
      await opts.db.query('SELECT 1');
      res.json({ status: 'ok' });
    } catch {
      res.status(503).json({ status: 'unavailable' });
    }
  });
  for (const spec of opts.datasets) app.use(datasetRouter(opts.db, spec));
  app.use((_req: Request, res: Response) => {
    res.status(404).json({ code: 'not_found', message: 'Không tìm thấy endpoint.' });
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof UpstreamError) {
      const body: Record<string, string> = { code: err.code, message: err.message };
      if (err.param) body.param = err.param;
      res.status(err.status).json(body);
      return;
    }
    opts.logger.error({ err, path: req.path }, 'upstream request failed');
    res.status(500).json({ code: 'internal_error', message: 'Lỗi hệ thống.' });
  });
  return app;
}
