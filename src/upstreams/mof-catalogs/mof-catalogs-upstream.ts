import type { Db } from '../../db/db';
import { loadAdminUnits } from '../../data/admin-units';
import { mofCatalogs } from '../../data/mof-catalog-data';
import { opaqueId } from '../../data/random';
import { createUpstreamApp, insertRows } from '../../upstream-kit';
import type { BuiltinUpstream, SeedOptions } from '../builtin-upstreams';
import { MOF_DATASETS } from './mof-catalogs-datasets';

/** Catalogues are reference lists with a fixed size, so scale does not apply; ids depend on the seed. */
export async function seedMofCatalogs(db: Db, opts: SeedOptions): Promise<void> {
  const seed = opts.seed ?? 1;
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['seed:mof-catalogs']);
    if ((await tx.query('SELECT 1 FROM mof_seed_state WHERE id = 1')).rows.length > 0) return;
    const rows = mofCatalogs(loadAdminUnits()).flatMap((c) =>
      c.items.map((it, i) => [
        opaqueId(c.prefix, seed, c.path, i),
        c.path,
        it.code,
        it.name,
        it.is_active,
        i + 1,
      ]),
    );
    await insertRows(
      tx,
      'mof_catalog_items',
      ['id', 'catalog', 'code', 'name', 'is_active', 'sort_order'],
      rows,
      {
        onConflict: 'ON CONFLICT (id) DO NOTHING',
      },
    );
    await tx.query('INSERT INTO mof_seed_state (id, options) VALUES (1, $1)', [JSON.stringify({ seed })]);
  });
}

/** Shared electronic catalogues of the finance ministry. */
export const mofCatalogsUpstream: BuiltinUpstream = {
  name: 'mof-catalogs',
  migrationSets: ['mof-catalogs'],
  seed: seedMofCatalogs,
  createApp: ({ db, logger, identity }) =>
    createUpstreamApp({ db, logger, identity, datasets: MOF_DATASETS }),
};
