import { bitmapCountQuery } from './bitmap-count';
import { expandAliases, leadingKind, prefixQueryText, typedRest } from './rank-terms';
import type { LeadingKind } from './rank-terms';
import type { DatasetSpec, ParamValue, SearchMode, SortContext, SortOption } from './dataset-spec';
import {
  escapeLike,
  foldedExpr,
  foldText,
  keywordWords,
  typedKeywords,
  typedWords,
  wordVectorExpr,
} from './normalize-keyword';
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

interface BuiltSearch {
  conds: string[];
  keywords: string;
  expr: string;
  mode: SearchMode;
  modeName: string;
  /** Folded [a-z0-9]+ terms of a `prefix` search. */
  terms?: string[];
  /** A `prefix` search's condition on its first column alone (see SortContext.matchesFirstColumn). */
  firstColumn?: string;
  /** A `prefix` search's words as typed, when they carry diacritics (see SortContext.typed). */
  typed?: string;
  /** All of q, folded, when it starts with a kind (see SortContext.lead). */
  rank?: { all: string };
}

function buildSearch(spec: DatasetSpec, query: RawQuery, b: Binder): BuiltSearch | undefined {
  const s = spec.search;
  if (!s) return undefined;
  const rawMode = s.modeParam ? nonEmpty(singleValue(query, s.modeParam)) : undefined;
  const modeName = rawMode ?? s.defaultMode;
  const mode = s.modes[modeName];
  if (!mode)
    throw invalidParam(
      s.modeParam ?? s.param,
      `Tham số ${s.modeParam ?? s.param} phải là một trong: ${Object.keys(s.modes).join(', ')}.`,
    );
  const raw = nonEmpty(singleValue(query, s.param));
  if (raw === undefined) return undefined;
  parseParam(s.param, raw, { type: 'string', maxLength: s.maxLength ?? 200 });
  const exprs = mode.columns.map((c, i) => mode.folded?.[i] ?? foldedExpr(c));
  const anyColumn = (pattern: string): string => {
    const p = b.bind(pattern);
    return '(' + exprs.map((e) => `${e} LIKE ${p}`).join(' OR ') + ')';
  };
  const expr = exprs[0] ?? '';
  if (mode.match === 'prefix') {
    // Only letters and digits reach the tsquery (see prefixQueryText).
    const typedTerms = foldText(raw)
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    if (typedTerms.length === 0) return { conds: ['FALSE'], keywords: '', expr, mode, modeName };
    const kind = leadingKind(typedTerms, typedWords(raw), mode.leadingWords);
    const rest = typedTerms.slice(kind?.length ?? 0);
    const tsq = prefixQuery(typedTerms, kind, mode, b);
    const vectors = mode.columns.map((c, i) => mode.vectors?.[i] ?? wordVectorExpr(c));
    const matches = vectors.map((v) => `${v} @@ ${tsq}`);
    const conds = ['(' + matches.join(' OR ') + ')'];
    // After a kind, the rest of q names the record: its first column (the name without its kind)
    // holds it, or "phường phú" would find every Phường by the "phu" in its kind.
    if (kind && rest.length > 0) conds.push(`${vectors[0]} @@ ${prefixQuery(rest, undefined, mode, b)}`);
    // A kind alone ("tp") ranks as its words; otherwise the rest of q ranks the names.
    const keywords = (rest.length > 0 ? expandAliases(rest, mode.aliases) : kind!.words).join(' ');
    // An alias written out is no longer what was typed.
    const typed =
      keywords === rest.join(' ')
        ? typedRest(typedKeywords(raw, typedTerms.join(' ')), kind?.length ?? 0, keywords)
        : undefined;
    const rank = kind && rest.length > 0 ? { all: typedTerms.join(' ') } : undefined;
    const terms = typedTerms;
    return { conds, keywords, expr, mode, modeName, terms, firstColumn: matches[0], typed, rank };
  }
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

function prefixQuery(
  terms: readonly string[],
  kind: LeadingKind | undefined,
  mode: SearchMode,
  b: Binder,
): string {
  return `to_tsquery('simple'::regconfig, ${b.bind(prefixQueryText(terms, kind, mode.aliases))})`;
}

function leadConditions(
  expr: string,
  rank: NonNullable<BuiltSearch['rank']>,
  b: Binder,
): SortContext['lead'] {
  return {
    exact: `${expr} = ${b.bind(rank.all)}`,
    startsWithAll: `${expr} LIKE ${b.bind(escapeLike(rank.all) + '%')}`,
  };
}

function spelledExpr(mode: SearchMode): string {
  return mode.spelled?.[0] ?? `public.f_spelling(${mode.columns[0]})`;
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
  const opt = s.options[raw];
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
