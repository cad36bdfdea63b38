import { bitmapCountQuery } from './bitmap-count';
import type { DatasetSpec, ParamValue, SortContext, SortOption } from './dataset-spec';
import { escapeLike, foldedExpr, foldText, keywordWords } from './normalize-keyword';
import { buildPrefixSearch, leadConditions, spelledExpr } from './prefix-search';
import type { BuiltSearch } from './prefix-search';
import { parseParam, singleValue } from './parse-params';
import type { RawQuery } from './parse-params';
import { invalidParam } from './upstream-error';

/** A WHERE clause and ORDER BY with their bound values, ready for list and count statements. */
export interface BuiltQuery {
  where: string;
  orderBy: string;
  /** Values for the placeholders of where, then of orderBy. */
  params: ParamValue[];
  /** How many leading params the WHERE clause uses (a count statement binds only those). */
  whereParamCount: number;
  /** From the chosen sort option (see SortOption.walkIndexFrom). */
  walkIndexFrom?: number;
  /** A cheaper exact count than counting the WHERE rows, when the search mode has one. */
  count?: CountQuery;
}

/** A statement returning the exact total as column `total`, with its own bound values. */
export interface CountQuery {
  sql: string;
  params: ParamValue[];
}

/** Collects bound values and hands out their placeholders. */
export class Binder {
  readonly params: ParamValue[] = [];
  bind(value: ParamValue): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }
}

/**
 * Parses the list parameters of a request against the spec and builds the SQL conditions.
 * `resolved` holds the values of filters with a `resolve` step (see resolveFilters).
 */
export function buildListQuery(
  spec: DatasetSpec,
  query: RawQuery,
  resolved?: ReadonlyMap<string, ParamValue>,
): BuiltQuery {
  const b = new Binder();
  const conds: string[] = spec.scope ? [spec.scope] : [];
  const present = new Set<string>();
  const values = new Map<string, ParamValue>();
  const filtered: string[] = [];

  for (const [name, f] of Object.entries(spec.filters ?? {})) {
    const raw = nonEmpty(singleValue(query, name));
    if (raw !== undefined) present.add(name);
    const src = raw ?? f.default;
    if (src === undefined) continue;
    const v = resolved?.get(name) ?? parseParam(name, src, f.param);
    values.set(name, v);
    if (f.where) {
      conds.push(f.where(b.bind(v)));
      filtered.push(name);
    }
  }

  const search = buildSearch(spec, query, b);
  if (search) {
    present.add(spec.search!.param);
    conds.push(...search.conds);
  }

  if (spec.requireOneOf && spec.requireOneOf.length > 0 && !spec.requireOneOf.some((p) => present.has(p))) {
    throw invalidParam(
      spec.requireOneOf.join(','),
      `Cần ít nhất một trong các tham số: ${spec.requireOneOf.join(', ')}.`,
    );
  }

  const whereParamCount = b.params.length;
  const ctx: SortContext = {
    bind: (v) => b.bind(v),
    keywords: search?.keywords,
    codeKeywords: search?.codeKeywords ?? search?.keywords,
    searchedExpr: search?.expr,
    ...(search?.typed ? { typed: search.typed, spelledExpr: spelledExpr(search.mode) } : {}),
    matchesFirstColumn: search?.firstColumn,
    // Bound here, past the WHERE's parameters, which the count query takes alone.
    ...(search?.rank ? { lead: leadConditions(search.expr, search.rank, b) } : {}),
  };
  const sort = chooseSort(spec, query, ctx, search?.modeName);
  const orderBy = sort
    ? typeof sort.orderBy === 'string'
      ? sort.orderBy
      : sort.orderBy(ctx)
    : (spec.defaultOrder ?? spec.idColumn);
  const where = conds.length ? conds.join(' AND ') : 'TRUE';
  const bitmaps = search?.mode.bitmapCount;
  const count =
    bitmaps && search.terms && !spec.scope
      ? bitmapCountQuery(bitmaps, search.terms, values, filtered)
      : undefined;
  return { where, orderBy, params: b.params, whereParamCount, walkIndexFrom: sort?.walkIndexFrom, count };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v;
}

function buildSearch(spec: DatasetSpec, query: RawQuery, b: Binder): BuiltSearch | undefined {
  const s = spec.search;
  if (!s) return undefined;
  const rawMode = s.modeParam ? nonEmpty(singleValue(query, s.modeParam)) : undefined;
  const modeName = rawMode ?? s.defaultMode;
  // Own keys only: search_in=toString must be refused, not found on the object's prototype.
  const mode = Object.hasOwn(s.modes, modeName) ? s.modes[modeName] : undefined;
  if (!mode)
    throw invalidParam(
      s.modeParam ?? s.param,
      `Tham số ${s.modeParam ?? s.param} phải là một trong: ${Object.keys(s.modes).join(', ')}.`,
    );
  const raw = nonEmpty(singleValue(query, s.param));
  if (raw === undefined) return undefined;
  parseParam(s.param, raw, { type: 'string', maxLength: s.maxLength ?? 200 });
  if (mode.match === 'prefix') return buildPrefixSearch(raw, mode, modeName, b);
  const exprs = mode.columns.map((c, i) => mode.folded?.[i] ?? foldedExpr(c));
  const anyColumn = (pattern: string): string => {
    const p = b.bind(pattern);
    return '(' + exprs.map((e) => `${e} LIKE ${p}`).join(' OR ') + ')';
  };
  const expr = exprs[0] ?? '';
  const words = keywordWords(raw);
  const keywords = mode.match === 'words' ? words.join(' ') : foldText(raw).trim();
  // Keywords of punctuation only match nothing rather than everything.
  if (keywords === '') return { conds: ['FALSE'], keywords: '', expr, mode, modeName };
  const conds =
    mode.match === 'words'
      ? words.map((w) => anyColumn(`%${escapeLike(w)}%`))
      : [anyColumn(`%${escapeLike(keywords)}%`)];
  return { conds, keywords, expr, mode, modeName };
}

function chooseSort(
  spec: DatasetSpec,
  query: RawQuery,
  ctx: SortContext,
  modeName: string | undefined,
): SortOption | undefined {
  const s = spec.sort;
  if (!s) return undefined;
  const raw = nonEmpty(singleValue(query, s.param)) ?? s.default;
  const opt = Object.hasOwn(s.options, raw) ? s.options[raw] : undefined;
  if (!opt)
    throw invalidParam(
      s.param,
      `Tham số ${s.param} phải là một trong: ${Object.keys(s.options).join(', ')}.`,
    );
  if (opt.needsSearch && !ctx.keywords && opt.fallback) return s.options[opt.fallback] ?? opt;
  return (modeName !== undefined ? opt.byMode?.[modeName] : undefined) ?? opt;
}

/** `a AS "a", …` for the output fields; names are quoted so any JSON key works. */
export function selectList(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, expr]) => `${expr} AS "${name.replace(/"/g, '""')}"`)
    .join(', ');
}
