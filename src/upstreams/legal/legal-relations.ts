import type { Queryable } from '../../db/db';

/**
 * The most related documents listed in each direction. A law cited as the basis of every
 * provincial decision has 10⁵ of them: listed whole, one answer would outgrow the gateway's
 * response bound (a 503) and hand out ids past every paging ceiling. The newest are listed; the
 * relations answer says how many there are in all.
 */
export const RELATED_MAX = 500;

type End = 'from_id' | 'to_id';
type Kind = 'replaces' | 'cites';

const joined = (self: End, other: End, kind: Kind, ownId: string): string =>
  `legal_document_relations r JOIN legal_documents o ON o.id = r.${other} WHERE r.${self} = ${ownId} AND r.kind = '${kind}'`;

/** The documents related to `ownId` (an SQL expression) in one direction, as {id, code, name, issued_date}, newest first. */
export const relatedDocuments = (self: End, other: End, kind: Kind, ownId: string): string =>
  `(SELECT coalesce(json_agg(json_build_object('id', o.id, 'code', o.code, 'name', o.name, 'issued_date', to_char(o.issued_date, 'YYYY-MM-DD')) ORDER BY o.issued_date DESC, o.id), '[]'::json)
    FROM (SELECT o.id, o.code, o.name, o.issued_date FROM ${joined(self, other, kind, ownId)}
      ORDER BY o.issued_date DESC, o.id LIMIT ${RELATED_MAX}) o)`;

const total = (self: End, other: End, kind: Kind): string =>
  `(SELECT count(*)::int FROM ${joined(self, other, kind, '$1')})`;

const DIRECTIONS: [name: string, self: End, other: End, kind: Kind][] = [
  ['replaces', 'from_id', 'to_id', 'replaces'],
  ['replaced_by', 'to_id', 'from_id', 'replaces'],
  ['cites', 'from_id', 'to_id', 'cites'],
  ['cited_by', 'to_id', 'from_id', 'cites'],
];

const SQL = `SELECT ${DIRECTIONS.map(
  ([name, self, other, kind]) =>
    `${relatedDocuments(self, other, kind, '$1')} AS ${name}, ${total(self, other, kind)} AS ${name}_total`,
).join(',\n  ')}`;

/**
 * GET /legal-documents/{id}/relations: the four directions of the replacement and citation graph,
 * each the newest RELATED_MAX with the count of all.
 */
export async function legalRelations(db: Queryable, id: string): Promise<Record<string, unknown> | null> {
  const r = await db.query(SQL, [id]);
  return r.rows[0] ?? null;
}
