import type express from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { parse } from 'yaml';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import type { BuiltinUpstream } from '../../src/upstreams/builtin-upstreams';
import { APOSTROPHES, foldText, rankTextExpr, wordVectorExpr } from '../../src/upstream-kit';
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

/** The apostrophes a word keeps inside it, as the kit drops them. */
const APOSTROPHE = new RegExp(`[${APOSTROPHES}]`, 'g');

/**
 * Where the relevance order of a word-prefix search puts `name` for a one-word `q` without
 * diacritics (kit relevanceOrder): 0 the name itself, 1 starting with q whole, 2 starting with it,
 * 3 holding it whole, 4 holding a word that starts with it. Names are read as rankTextExpr reads
 * them: folded, apostrophes dropped, other punctuation a space.
 */
export function relevanceTier(name: string, q: string): number {
  const words = fold(name)
    .replace(APOSTROPHE, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.join(' ') === q) return 0;
  if (words[0] === q) return 1;
  if (words[0]!.startsWith(q)) return 2;
  return words.includes(q) ? 3 : 4;
}

/**
 * Lists each one-word `q` on each of `paths` and expects the names' relevance tiers never to go
 * back; returns the tiers seen, so a test can require those its data must show.
 */
export async function expectTiersInOrder(
  app: express.Express,
  paths: readonly string[],
  qs: readonly string[],
): Promise<number[]> {
  const seen = new Set<number>();
  for (const path of paths)
    for (const q of qs) {
      const r = await request(app).get(`/${path}?q=${q}&per_page=1000`);
      const tiers = (r.body.data as { name: string }[]).map((x) => relevanceTier(x.name, q));
      tiers.forEach((t) => seen.add(t));
      expect([path, q, tiers]).toEqual([path, q, [...tiers].sort((a, b) => a - b)]);
    }
  return [...seen].sort((a, b) => a - b);
}

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
