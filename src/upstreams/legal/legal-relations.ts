import type { Queryable } from '../../db/db';

const item = `json_build_object('id', o.id, 'code', o.code, 'name', o.name, 'issued_date', to_char(o.issued_date, 'YYYY-MM-DD'))`;
const list = (self: 'from_id' | 'to_id', other: 'from_id' | 'to_id', kind: 'replaces' | 'cites'): string =>
  `(SELECT coalesce(json_agg(${item} ORDER BY o.issued_date DESC, o.id), '[]'::json)
    FROM legal_document_relations r JOIN legal_documents o ON o.id = r.${other} WHERE r.${self} = $1 AND r.kind = '${kind}')`;

const SQL = `SELECT ${list('from_id', 'to_id', 'replaces')} AS replaces, ${list('to_id', 'from_id', 'replaces')} AS replaced_by,
  ${list('from_id', 'to_id', 'cites')} AS cites, ${list('to_id', 'from_id', 'cites')} AS cited_by`;

/** GET /legal-documents/{id}/relations: the four directions of the replacement and citation graph. */
export async function legalRelations(db: Queryable, id: string): Promise<Record<string, unknown> | null> {
  const r = await db.query(SQL, [id]);
  return r.rows[0] ?? null;
}
