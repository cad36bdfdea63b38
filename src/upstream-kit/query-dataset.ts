import type { Db, Queryable } from '../db/db';
import { buildListQuery, selectList } from './build-query';
import type { DatasetSpec } from './dataset-spec';
import { parsePaging } from './parse-params';
import type { RawQuery } from './parse-params';
import { resolveFilters } from './resolve-filters';

export interface ListResult {
  data: Record<string, unknown>[];
  total: number;
}

/**
 * The list query of DESIGN §4: one page of records and the exact total. The page and the count
 * run side by side (separate pool connections on PostgreSQL).
 */
export async function listRecords(db: Db, spec: DatasetSpec, query: RawQuery): Promise<ListResult> {
  const { page, perPage } = parsePaging(query);
  const q = buildListQuery(spec, query, await resolveFilters(spec, query));
  const limit = `$${q.params.length + 1}`;
  const offset = `$${q.params.length + 2}`;
  const pageSql = spec.keysFirst
    ? `SELECT ${selectList(spec.listFields)} FROM ${spec.from} WHERE ${spec.idColumn} IN (SELECT ${spec.idColumn} FROM ${spec.from} WHERE ${q.where} ORDER BY ${q.orderBy} LIMIT ${limit} OFFSET ${offset}) ORDER BY ${q.orderBy}`
    : `SELECT ${selectList(spec.listFields)} FROM ${spec.from} WHERE ${q.where} ORDER BY ${q.orderBy} LIMIT ${limit} OFFSET ${offset}`;
  const countSql = q.count?.sql ?? `SELECT count(*)::int AS total FROM ${spec.from} WHERE ${q.where}`;
  const pageParams = [...q.params, perPage, (page - 1) * perPage];
  const countParams = q.count?.params ?? q.params.slice(0, q.whereParamCount);
  if (q.walkIndexFrom === undefined) {
    const [rows, count] = await Promise.all([
      db.query<Record<string, unknown>>(pageSql, pageParams),
      db.query<{ total: number }>(countSql, countParams),
    ]);
    return { data: rows.rows, total: Number(count.rows[0]?.total ?? 0) };
  }
  const total = Number((await db.query<{ total: number }>(countSql, countParams)).rows[0]?.total ?? 0);
  if (total === 0 || (page - 1) * perPage >= total) return { data: [], total };
  // Many matches: walk the order's index and stop after one page. The planner misjudges how many
  // rows a prefix search keeps (a bitmap of 65,000 matches plus a sort read ~27,000 heap pages
  // where the walk reads a few hundred), so the other plans are ruled out (not sort: a disabled node's huge cost would trigger JIT compilation). Few matches: forbid
  // plain index scans so the plan is "collect matches (bitmap), then sort".
  const settings =
    total >= q.walkIndexFrom
      ? ['SET LOCAL enable_bitmapscan = off', 'SET LOCAL enable_seqscan = off']
      : ['SET LOCAL enable_indexscan = off'];
  const rows = await db.transaction(async (tx) => {
    for (const s of settings) await tx.query(s);
    return (await tx.query<Record<string, unknown>>(pageSql, pageParams)).rows;
  });
  return { data: rows, total };
}

/** One record with list and detail fields, or null. Ids without the dataset's prefix never match. */
export async function getRecord(
  db: Queryable,
  spec: DatasetSpec,
  id: string,
): Promise<Record<string, unknown> | null> {
  if (spec.idPrefix && !id.startsWith(spec.idPrefix)) return null;
  const fields = { ...spec.listFields, ...(spec.detailFields ?? {}) };
  const where = spec.scope ? `${spec.scope} AND ` : '';
  const sql = `SELECT ${selectList(fields)} FROM ${spec.from} WHERE ${where}${spec.idColumn}::text = $1 LIMIT 1`;
  const r = await db.query<Record<string, unknown>>(sql, [id]);
  return r.rows[0] ?? null;
}

/** Whether a record exists, for sub-resources of unknown ids. */
export async function recordExists(db: Queryable, spec: DatasetSpec, id: string): Promise<boolean> {
  if (spec.idPrefix && !id.startsWith(spec.idPrefix)) return false;
  const where = spec.scope ? `${spec.scope} AND ` : '';
  const r = await db.query(`SELECT 1 FROM ${spec.from} WHERE ${where}${spec.idColumn}::text = $1 LIMIT 1`, [
    id,
  ]);
  return r.rows.length > 0;
}

/** Size of the whole dataset, for bulk-extraction shares. */
export async function datasetTotal(db: Queryable, spec: DatasetSpec): Promise<number> {
  const r = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${spec.from} WHERE ${spec.scope ?? 'TRUE'}`,
  );
  return Number(r.rows[0]?.total ?? 0);
}
