import type { DatasetSpec, ParamValue } from './dataset-spec';
import { parseParam, singleValue } from './parse-params';
import type { RawQuery } from './parse-params';

/**
 * Runs the async `resolve` step of the filters that declare one (e.g. a point looked up in an
 * in-memory spatial index), before the SQL is built. Returns the values to bind instead of the
 * parsed ones; undefined when no such filter is present, so other datasets pay nothing.
 */
export async function resolveFilters(
  spec: DatasetSpec,
  query: RawQuery,
): Promise<ReadonlyMap<string, ParamValue> | undefined> {
  let out: Map<string, ParamValue> | undefined;
  for (const [name, f] of Object.entries(spec.filters ?? {})) {
    if (!f.resolve) continue;
    const raw = singleValue(query, name);
    const src = raw === undefined || raw.trim() === '' ? f.default : raw;
    if (src === undefined) continue;
    (out ??= new Map()).set(name, await f.resolve(parseParam(name, src, f.param)));
  }
  return out;
}
