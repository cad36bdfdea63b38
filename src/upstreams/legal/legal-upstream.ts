import { createUpstreamApp } from '../../upstream-kit';
import type { BuiltinUpstream } from '../builtin-upstreams';
import { LEGAL_DATASETS } from './legal-datasets';
import { seedLegal } from './legal-seed';

/** Legal documents, their catalogs and relations. */
export const legalUpstream: BuiltinUpstream = {
  name: 'legal',
  migrationSets: ['legal'],
  seed: seedLegal,
  createApp: ({ db, logger, identity }) =>
    createUpstreamApp({ db, logger, identity, datasets: LEGAL_DATASETS }),
};
