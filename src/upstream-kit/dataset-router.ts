import { Router } from 'express';
import type { Request, Response } from 'express';
import type { Db } from '../db/db';
import type { DatasetSpec } from './dataset-spec';
import { datasetTotal, getRecord, listRecords, recordExists } from './query-dataset';
import { notFound, unknownEndpoint, unknownParameter } from './upstream-error';

/** The query parameters a list of `spec` reads: paging, its filters, its search and its sort. */
function listParams(spec: DatasetSpec): Set<string> {
  const { search, sort } = spec;
  return new Set([
    'page',
    'per_page',
    ...Object.keys(spec.filters ?? {}),
    ...(search ? [search.param, ...(search.modeParam ? [search.modeParam] : [])] : []),
    ...(sort ? [sort.param] : []),
  ]);
}

/** Express 5 forwards rejected promises to the error handler, so handlers can simply throw. */
export function datasetRouter(db: Db, spec: DatasetSpec): Router {
  const r = Router();
  const base = '/' + spec.path.replace(/^\/+|\/+$/g, '');
  const detail = spec.detail !== false;

  const reads = listParams(spec);
  r.get(base, async (req: Request, res: Response) => {
    for (const name of Object.keys(req.query)) if (!reads.has(name)) throw unknownParameter(name);
    res.json(await listRecords(db, spec, req.query));
  });
  r.get(`${base}/_stats`, async (_req: Request, res: Response) => {
    res.json({ total: await datasetTotal(db, spec) });
  });
  if (detail) {
    r.get(`${base}/:id`, async (req: Request<{ id: string }>, res: Response) => {
      const rec = await getRecord(db, spec, req.params.id);
      if (!rec) throw notFound();
      res.json({ data: rec });
    });
    r.get(`${base}/:id/:sub`, async (req: Request<{ id: string; sub: string }>, res: Response) => {
      const handler = spec.subresources?.[req.params.sub];
      if (!handler || !Object.hasOwn(spec.subresources ?? {}, req.params.sub)) throw unknownEndpoint();
      if (!(await recordExists(db, spec, req.params.id))) throw notFound();
      const data: unknown = await handler(db, req.params.id);
      if (data === null || data === undefined) throw notFound();
      // The gateway refuses anything but an object here (DESIGN §4: "likewise" a detail); say so
      // in this service's log rather than leave a 503 without a reason.
      if (typeof data !== 'object' || Array.isArray(data))
        throw new Error(`sub-resource ${req.params.sub} of ${spec.path} answered a non-object data`);
      res.json({ data });
    });
  }
  return r;
}
