import type express from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import type { BuiltinUpstream } from '../../src/upstreams/builtin-upstreams';
import { foldText, rankTextExpr, wordVectorExpr } from '../../src/upstream-kit';
import type { Clock } from '../../src/util/clock';
import { projectRoot } from '../../src/util/project-root';
import { silentLogger } from '../../src/util/logger';
import type { TestDatabase } from '../support/databases';

export interface Harness {
  db: Db;
  app: express.Express;
}

/** Opens a fresh database, migrates and seeds the upstream small, and builds its app. */
export async function startUpstream(
  tdb: TestDatabase,
  upstream: BuiltinUpstream,
  scale = 0.05,
  clock?: Clock,
): Promise<Harness> {
  const db = await tdb.open();
  for (const set of upstream.migrationSets) await migrate(db, set);
  await upstream.seed(db, { seed: 7, scale });
  return { db, app: upstream.createApp({ db, logger: silentLogger(), ...(clock ? { clock } : {}) }) };
}

export interface RegistryEntry {
  path: string;
  upstream: string;
  id_prefix: string;
}

/** The gateway's registry, so tests check the upstreams serve exactly what it routes to them. */
export function registry(upstream: string): RegistryEntry[] {
  const file = parse(readFileSync(join(projectRoot(), 'config', 'datasets.yaml'), 'utf8')) as {
    datasets: RegistryEntry[];
  };
  return file.datasets.filter((d) => d.upstream === upstream);
}

export const fold = foldText;

/** Whether a word of `text`, folded, starts with `prefix` (how a word-prefix search matches). */
export const hasWordStarting = (text: string, prefix: string): boolean =>
  fold(text)
    .split(/\s+/)
    .some((w) => w.startsWith(prefix));

/**
 * Rows of `table` whose stored search columns (name_terms, name_spelled, <column>_words) differ from what the
 * search kit's expressions compute from the text: a migration and the kit must agree, or a search
 * misses what its words promise.
 */
export async function storedSearchMismatches(
  db: Db,
  table: string,
  columns: readonly string[],
): Promise<number> {
  const differs = [
    `name_terms IS DISTINCT FROM ${rankTextExpr('name')}`,
    'name_spelled IS DISTINCT FROM public.f_spelling(name)',
    ...columns.map((c) => `${c}_words IS DISTINCT FROM ${wordVectorExpr(c, { joinApostrophes: true })}`),
  ];
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE ${differs.join(' OR ')}`,
  );
  return Number(r.rows[0]!.n);
}
