import { analyzeTables, vacuumUnvisited } from '../db/analyze';
import type { Db } from '../db/db';
import { migrateLogged } from '../db/migrate';
import type { BuiltinUpstream } from '../upstreams/builtin-upstreams';
import type { Logger } from '../util/logger';

/**
 * A built-in upstream's tables before it serves, the same in the embedded product and in
 * `upstream <name>`: its migrations, its sample data when asked for, then the pages a rewrite left
 * unmarked and the statistics a table never had (analyze.ts). The vacuum runs first: it analyses
 * what it vacuums, so the ANALYZE after it only meets the tables it left.
 */
export async function prepareBuiltin(
  db: Db,
  builtin: BuiltinUpstream,
  logger: Logger,
  seedSampleData: boolean,
): Promise<void> {
  for (const set of builtin.migrationSets) await migrateLogged(db, set, logger);
  if (seedSampleData) await builtin.seed(db, {});
  await vacuumUnvisited(db);
  await analyzeTables(db, 'unanalysed');
}
