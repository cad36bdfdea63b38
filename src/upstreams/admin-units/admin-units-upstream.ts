import type express from 'express';
import type { Db } from '../../db/db';
import { createUpstreamApp } from '../../upstream-kit';
import type { IdentityCheck } from '../../upstream-kit';
import type { Logger } from '../../util/logger';
import type { BuiltinUpstream } from '../builtin-upstreams';
import { adminUnitsDatasets } from './admin-units-datasets';
import { seedAdminUnits } from './admin-units-seed';
import { loadBoundaries } from './boundary-index';
import type { AdminBoundaries } from './boundary-index';

/**
 * The deadline of a query of the start-time load: far longer than a request's, yet bounded, since
 * the load is retried only once it fails, and one hung on a connection the database dropped would
 * keep the upstream unready for good.
 */
const SETUP_QUERY_TIMEOUT_MS = 120_000;

/**
 * The service. It also makes sure the reference data is loaded before answering: these are real
 * units shipped with the code, not sample rows, and the prod Deployments run with
 * SEED_SAMPLE_DATA=false (so the entry point skips seed()). Already loaded, that costs one lookup.
 */
export function createAdminUnitsApp(deps: {
  db: Db;
  setupDb?: Db;
  logger: Logger;
  identity?: IdentityCheck;
}): express.Express {
  const { db, logger, identity } = deps;
  // Not under the requests' deadline: a second replica waits for the first one's seed, and the
  // index reads every ward's geometry at once.
  const setupDb = deps.setupDb?.withQueryTimeout(SETUP_QUERY_TIMEOUT_MS) ?? db;
  let loading: Promise<AdminBoundaries> | undefined;
  const boundaries = (): Promise<AdminBoundaries> => {
    if (loading) return loading;
    const p = seedAdminUnits(setupDb).then(() => loadBoundaries(setupDb));
    loading = p;
    // A failed load (database briefly down) is retried by the next request instead of sticking.
    p.catch((err: unknown) => {
      if (loading === p) loading = undefined;
      logger.error({ err }, 'admin-units: loading the boundary index failed');
    });
    return loading;
  };
  // Start now, so the index is built while the pod waits for readiness, not on the first lookup.
  void boundaries().catch(() => undefined);
  return createUpstreamApp({
    db,
    logger,
    identity,
    datasets: adminUnitsDatasets(boundaries),
    ready: async () => {
      await boundaries();
    },
  });
}

/** Administrative units before and after the 2025 reorganisation, with boundaries and point lookup. */
export const adminUnitsUpstream: BuiltinUpstream = {
  name: 'admin-units',
  migrationSets: ['admin-units'],
  seed: (db) => seedAdminUnits(db),
  createApp: createAdminUnitsApp,
};
