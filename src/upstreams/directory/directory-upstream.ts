import type { Db } from '../../db/db';
import { loadAdminUnits } from '../../data/admin-units';
import { generateDirectory } from '../../data/directory-generator';
import { createUpstreamApp, insertRows } from '../../upstream-kit';
import type { BuiltinUpstream, SeedOptions } from '../builtin-upstreams';
import { DIRECTORY_DATASETS } from './directory-datasets';
import { DIRECTORY_COLUMNS, directoryValues } from './directory-rows';

/** Seeds once per database, in one transaction. */
export async function seedDirectory(db: Db, opts: SeedOptions): Promise<void> {
  const seed = opts.seed ?? 1;
  const scale = opts.scale ?? 1;
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['seed:directory']);
    if ((await tx.query('SELECT 1 FROM directory_seed_state WHERE id = 1')).rows.length > 0) return;
    const rows = generateDirectory(seed, scale, loadAdminUnits());
    await insertRows(tx, 'directory_organisations', DIRECTORY_COLUMNS, rows.map(directoryValues), {
      onConflict: 'ON CONFLICT (id) DO NOTHING',
    });
    await tx.query('INSERT INTO directory_seed_state (id, options) VALUES (1, $1)', [
      JSON.stringify({ seed, scale }),
    ]);
  });
}

/** The organisation directory: bailiff offices, notaries, law firms and schools. */
export const directoryUpstream: BuiltinUpstream = {
  name: 'directory',
  migrationSets: ['directory'],
  seed: seedDirectory,
  createApp: ({ db, logger, identity }) =>
    createUpstreamApp({ db, logger, identity, datasets: DIRECTORY_DATASETS }),
};
