import type { Queryable } from '../../db/db';
import { RELATED_MAX } from '../../data/legal-catalogs';

type End = 'from_id' | 'to_id';
type Kind = 'replaces' | 'cites';

/**
 * Newest first, ties by id (descending), of the documents aliased `alias`: the legal list's
 * sort=newest, and the order related documents are listed in, so those listed are its first.
 */
export const newestFirst = (alias: string): string => `${alias}.issued_date DESC, ${alias}.id DESC`;

const NEWEST = newestFirst('o');

/**
 * The newest RELATED_MAX documents related to `ownId` (an SQL expression) in one direction, with
 * `total`, the count of all of them, taken in the same pass (a window runs before the LIMIT).
 */
const newestRelated = (self: End, other: End, kind: Kind, ownId: string): string =>
  `SELECT o.id, o.code, o.name, o.issued_date, count(*) OVER () AS total
     FROM legal_document_relations r JOIN legal_documents o ON o.id = r.${other}
    WHERE r.${self} = ${ownId} AND r.kind = '${kind}'
    ORDER BY ${NEWEST} LIMIT ${RELATED_MAX}`;

const asList = `coalesce(json_agg(json_build_object('id', o.id, 'code', o.code, 'name', o.name, 'issued_date', to_char(o.issued_date, 'YYYY-MM-DD')) ORDER BY ${NEWEST}), '[]'::json)`;

/** The documents related to `ownId` in one direction, as {id, code, name, issued_date}, newest first. */
export const relatedDocuments = (self: End, other: End, kind: Kind, ownId: string): string =>
  `(SELECT ${asList} FROM (${newestRelated(self, other, kind, ownId)}) o)`;

const DIRECTIONS: [name: string, self: End, other: End, kind: Kind][] = [
  ['replaces', 'from_id', 'to_id', 'replaces'],
  ['replaced_by', 'to_id', 'from_id', 'replaces'],
  ['cites', 'from_id', 'to_id', 'cites'],
  ['cited_by', 'to_id', 'from_id', 'cites'],
];

// One row: each direction a derived table of one row (an aggregate without GROUP BY).
const SQL = `SELECT ${DIRECTIONS.map(([name]) => `${name}.list AS ${name}, ${name}.total AS ${name}_total`).join(', ')}
  FROM ${DIRECTIONS.map(
    ([name, self, other, kind]) =>
      `(SELECT ${asList} AS list, coalesce(max(o.total), 0)::int AS total FROM (${newestRelated(self, other, kind, '$1')}) o) ${name}`,
  ).join(',\n    ')}`;

/**
 * GET /legal-documents/{id}/relations: the four directions of the replacement and citation graph,
 * each the newest RELATED_MAX with the count of all.
 */
export async function legalRelations(db: Queryable, id: string): Promise<Record<string, unknown> | null> {
  const r = await db.query(SQL, [id]);
  return r.rows[0] ?? null;
}
