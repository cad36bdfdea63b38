import type { CountQuery } from './build-query';
import type { BitmapCountSpec, ParamValue } from './dataset-spec';

const DEFAULT_MAX_TERMS = 8;

/**
 * The exact total of a `prefix` search from per-term bitmap blocks (see BitmapCountSpec): the
 * blocks of the first term joined block by block with those of the others, AND-ed, bits counted.
 * A block missing for any term holds no match, so the inner joins lose nothing. Undefined when the
 * bitmaps cannot answer: a filter other than the part filter applies, or too many terms.
 */
export function bitmapCountQuery(
  spec: BitmapCountSpec,
  terms: readonly string[],
  values: ReadonlyMap<string, ParamValue>,
  filtered: readonly string[],
): CountQuery | undefined {
  const part = values.get(spec.partFilter);
  if (part === undefined || filtered.some((f) => f !== spec.partFilter)) return undefined;
  const distinct = [...new Set(terms)];
  if (distinct.length === 0 || distinct.length > (spec.maxTerms ?? DEFAULT_MAX_TERMS)) return undefined;
  const params: ParamValue[] = [String(part), ...distinct];
  const t = spec.table;
  const joins = distinct
    .slice(1)
    .map(
      (_, i) =>
        `JOIN ${t} t${i + 1} ON t${i + 1}.term = $${i + 3} AND t${i + 1}.part = $1 AND t${i + 1}.block = t0.block`,
    )
    .join(' ');
  const and = distinct.map((_, i) => `t${i}.bits`).join(' & ');
  const sql = `SELECT coalesce(sum(bit_count(${and})), 0)::bigint AS total FROM ${t} t0 ${joins} WHERE t0.term = $2 AND t0.part = $1`;
  return { sql, params };
}
