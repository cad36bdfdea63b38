import type { Db, Queryable } from '../db/db';
import { buildListQuery, selectList } from './build-query';
import type { DatasetSpec } from './dataset-spec';
import { parsePaging } from './parse-params';
import type { RawQuery } from './parse-params';

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
  const q = buildListQuery(spec, query);
  const limit = `$${q.params.length + 1}`;
  const offset = `$${q.params.length + 2}`;
  const pageSql = `SELECT ${selectList(spec.listFields)} FROM ${spec.from} WHERE ${q.where} ORDER BY ${q.orderBy} LIMIT ${limit} OFFSET ${offset}`;
  const countSql = `SELECT count(*)::int AS total FROM ${spec.from} WHERE ${q.where}`;
  const pageParams = [...q.params, perPage, (page - 1) * perPage];
  const countParams = q.params.slice(0, q.whereParamCount);
  if (q.walkIndexFrom === undefined) {
    const [rows, count] = await Promise.all([
      db.query<Record<string, unknown>>(pageSql, pageParams),
      db.query<{ total: number }>(countSql, countParams),
    ]);
    return { data: rows.rows, total: Number(count.rows[0]?.total ?? 0) };
  }
  const total = Number((await db.query<{ total: number }>(countSql, countParams)).rows[0]?.total ?? 0);
  if (total === 0 || (page - 1) * perPage >= total) return { data: [], total };
  if (total >= q.walkIndexFrom)
    return { data: (await db.query<Record<string, unknown>>(pageSql, pageParams)).rows, total };
  // Few matches: forbid plain index scans so the plan is "collect matches (bitmap), then sort".
  const rows = await db.transaction(async (tx) => {
    await tx.query('SET LOCAL enable_indexscan = off');
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
