import { createUpstreamApp } from '../../upstream-kit';
import type { BuiltinUpstream } from '../builtin-upstreams';
import { LEGAL_DATASETS } from './legal-datasets';
import { seedLegal } from './legal-seed';
import { legalStatusUpkeep } from './legal-status-upkeep';
import { systemClock } from '../../util/clock';

/** Legal documents, their catalogs and relations. */
export const legalUpstream: BuiltinUpstream = {
  name: 'legal',
  migrationSets: ['legal'],
  seed: seedLegal,
  createApp: ({ db, logger, identity, clock = systemClock }) =>
    createUpstreamApp({
      db,
      logger,
      identity,
      datasets: LEGAL_DATASETS,
      ready: legalStatusUpkeep(db, logger, clock),
    }),
};
