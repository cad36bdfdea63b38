import { ApiError } from '../../errors/api-error';
import { planLabel } from '../../config/plan-label';
import type { CompiledPlan, CompiledRange } from '../../config/compile-config';
import type { RequestContext } from '../context';
import type { PolicyFactory } from '../policy';

const POSITIVE = /^\d+$/;

function pageNumber(ctx: RequestContext, name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  // Digits only; a huge number is still a number (a page past the ceiling, a per_page to lower).
  if (!POSITIVE.test(raw) || Number(raw) < 1) {
    throw new ApiError('invalid_request', {
      param: name,
      message: `Tham số ${name} phải là số nguyên dương.`,
    });
  }
  // By value, not length: `0000000000000005` is 5.
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : Number.MAX_SAFE_INTEGER;
}

/** page, per_page, or (for a dataset) one of its declared parameters. */
const declared = (name: string, params: ReadonlyMap<string, unknown> | undefined): boolean =>
  name === 'page' || name === 'per_page' || (params?.has(name) ?? false);

/** The query's page, per_page and (for a dataset) declared parameters, each given at most once. */
function givenOnce(ctx: RequestContext, params?: ReadonlyMap<string, unknown>): Map<string, string> {
  const seen = new Map<string, string>();
  for (const [name, value] of ctx.query) {
    if (!declared(name, params)) {
      // Unknown names are ignored, but `province_code[]` or `page[0]` is a parameter some client
      // library spelled its own way: answered with every record, or with page 1, it would look
      // like a match.
      const bracket = name.indexOf('[');
      if (bracket > 0 && name.endsWith(']') && declared(name.slice(0, bracket), params)) {
        const base = name.slice(0, bracket);
        throw new ApiError('invalid_request', {
          param: base,
          message: `Tham số ${base} được truyền một lần, dạng ${base}=giá trị (không có ngoặc vuông).`,
        });
      }
      continue;
    }
    if (seen.has(name)) {
      throw new ApiError('invalid_request', {
        param: name,
        message: `Tham số ${name} chỉ được truyền một lần.`,
      });
    }
    seen.set(name, value.trim());
  }
  return seen;
}

/**
 * An inverted pair (issued_from after issued_to) can match nothing: a mistake, not a query to charge
 * for. Runs after both values passed their check, so a date compares as text and an integer as a number.
 */
function crossed(r: CompiledRange, seen: ReadonlyMap<string, string>): void {
  const from = seen.get(r.from);
  const to = seen.get(r.to);
  if (!from || !to) return;
  if (r.numeric ? Number(from) <= Number(to) : from <= to) return;
  throw new ApiError('invalid_request', {
    param: r.from,
    message: `Tham số ${r.from} (${from}) không được ${r.numeric ? 'lớn hơn' : 'sau'} ${r.to} (${to}).`,
  });
}

/**
 * Parameters against the dataset's declared schema before any upstream call: types, enums, real
 * dates, required-one-of, inverted ranges → 422 invalid_request; page past the plan → 422 page_limit; per_page lowered.
 * GET /v1/datasets is paged by the same rules when page or per_page is given.
 */
export const validatePolicy: PolicyFactory = (config) => {
  const defaultPerPage = config.raw.plans.default_per_page;
  // Sets ctx.page and ctx.perPage, and returns them for the upstream's query.
  const paging = (
    ctx: RequestContext,
    seen: Map<string, string>,
    plan: CompiledPlan,
  ): { page: number; perPage: number } => {
    const page = pageNumber(ctx, 'page', seen.get('page')) ?? 1;
    const perPage = Math.min(
      pageNumber(ctx, 'per_page', seen.get('per_page')) ?? defaultPerPage,
      plan.per_page_max,
    );
    if (page > plan.max_page) {
      throw new ApiError('page_limit', {
        // Named as an invalid_request names its parameter.
        param: 'page',
        upgrade_url: config.raw.plans.upgrade_url,
        message: `Số trang tối đa của gói ${planLabel(plan.name)} là ${plan.max_page}.`,
      });
    }
    ctx.page = page;
    ctx.perPage = perPage;
    return { page, perPage };
  };
  return {
    name: 'validate',
    handle(ctx) {
      const { route, principal } = ctx;
      if (!route || !principal) return;
      // On every route: a query string that cannot be decoded is bad input even where none is read.
      if (ctx.queryError) throw new ApiError('invalid_request', { message: ctx.queryError });
      if (route.kind !== 'list' && route.kind !== 'datasets') return;
      if (route.kind === 'datasets') {
        // The reference gives this endpoint no parameters and has it return the plan's datasets:
        // without page and per_page, all of them (answerDatasets); with either, paged like every list.
        const seen = givenOnce(ctx);
        if (seen.get('page') || seen.get('per_page')) paging(ctx, seen, principal.plan);
        return;
      }
      const ds = route.dataset!;
      const seen = givenOnce(ctx, ds.params);
      // The upstream's query string, written directly: declared order, names and defaults encoded
      // once at load (param-validators.ts), each given value encoded once here.
      const parts: string[] = [];
      for (const [name, v] of ds.params) {
        const raw = seen.get(name);
        if (raw === undefined || raw === '') {
          if (v.defaultPart !== undefined) parts.push(v.defaultPart);
          continue;
        }
        const res = v.check(raw);
        if (!res.ok)
          throw new ApiError('invalid_request', {
            param: name,
            message: `Tham số ${name} không hợp lệ: ${res.reason}.`,
          });
        parts.push(v.queryName + encodeURIComponent(res.value));
      }
      for (const r of ds.ranges) crossed(r, seen);
      if (ds.requireOneOf.length > 0 && !ds.requireOneOf.some((n) => seen.get(n))) {
        throw new ApiError('invalid_request', {
          message: `Cần ít nhất một trong các tham số: ${ds.requireOneOf.join(', ')}.`,
        });
      }
      const { page, perPage } = paging(ctx, seen, principal.plan);
      parts.push(`page=${page}`, `per_page=${perPage}`);
      ctx.upstreamQuery = parts.join('&');
    },
  };
};
