import type { DatasetConfig, FieldRule } from './datasets-schema';
import type { RawConfig } from './load-config';
import { ConfigError } from './load-config';
import { compileParamValidators } from './param-validators';
import type { ParamValidator } from './param-validators';
import type { MeterLimits } from '../metering/meter-store';
import type { PlanLimits } from './plans-schema';
import type { UpstreamConfig } from './upstreams-schema';
import { fieldPlan } from './field-plans';
import type { FieldPlan } from './field-plans';
import { compileIpMatcher } from './trusted-proxies';
import type { IpMatcher } from './trusted-proxies';

export interface CompiledPlan extends PlanLimits {
  name: string;
  /** Position in the ordered plan list: a plan satisfies "X+" when rank >= rank(X). */
  rank: number;
  /** Its counting limits as the meter store takes them: one object per plan (the Redis store keeps their text per object). */
  meterLimits: MeterLimits;
  /** The same without rate windows: the charge of a call over the full-text cap that counts after all. */
  chargeLimits: MeterLimits;
  /** Its IETF RateLimit-Policy field value: a "second", "minute", "day" and "month" policy, fixed by the plan. */
  rateLimitPolicy: string;
}

export interface CompiledField {
  name: string;
  minRank: number;
  preview: boolean;
}

export interface CompiledSubresource {
  name: string;
  minRank: number;
  minPlan: string;
  cost: number;
}

export interface CompiledDataset {
  path: string;
  upstream: string;
  upstreamPath: string;
  /** Absent for a catalogue whose items are named by their own ids (no detail endpoint). */
  idPrefix: string | undefined;
  minRank: number;
  minPlan: string;
  cost: number;
  detail: boolean;
  bulkWatch: boolean;
  fullTextField: string | undefined;
  /** Whether the full-text field, where it is not given whole, is a preview rather than removed. */
  fullTextPreview: boolean;
  params: Map<string, ParamValidator>;
  requireOneOf: string[];
  /** Bounds given together must not cross (issued_from ≤ issued_to); values are compared normalised. */
  ranges: CompiledRange[];
  fields: CompiledField[];
  /** What each plan (by name) gets of the plan-gated fields. */
  fieldPlans: Map<string, FieldPlan>;
  subresources: Map<string, CompiledSubresource>;
  source: DatasetConfig;
}

/** The validated, compiled configuration a pipeline is built from; immutable once built. */
export interface RuntimeConfig {
  raw: RawConfig;
  plans: Map<string, CompiledPlan>;
  planList: CompiledPlan[];
  datasets: Map<string, CompiledDataset>;
  upstreams: Map<string, UpstreamConfig>;
  trustedProxy: IpMatcher;
}

/** The "month" policy's window in seconds: 31 days, the longest calendar month. */
const MONTH_WINDOW_S = 31 * 86_400;

function fieldRule(name: string, rule: FieldRule, rankOf: (p: string, at: string) => number, at: string): CompiledField {
  return { name, minRank: rankOf(rule.min_plan, `${at}.fields.${name}.min_plan`), preview: rule.preview };
}

export interface CompiledRange {
  from: string;
  to: string;
  /** Integers compare as numbers; dates (YYYY-MM-DD) as strings. */
  numeric: boolean;
}

function compileRange(r: { from: string; to: string }, params: ReadonlyMap<string, ParamValidator>, at: string): CompiledRange {
  const from = params.get(r.from);
  const to = params.get(r.to);
  if (!from) throw new ConfigError('datasets.yaml', `${at}.from`, `"${r.from}" is not a declared parameter`);
  if (!to) throw new ConfigError('datasets.yaml', `${at}.to`, `"${r.to}" is not a declared parameter`);
  if (r.from === r.to) throw new ConfigError('datasets.yaml', `${at}.to`, 'from and to must be two parameters');
  const type = from.spec.type;
  if ((type !== 'date' && type !== 'integer') || to.spec.type !== type) {
    throw new ConfigError('datasets.yaml', at, 'from and to must both be date or both be integer parameters');
  }
  return { from: r.from, to: r.to, numeric: type === 'integer' };
}

function compileDataset(
  ds: DatasetConfig,
  i: number,
  raw: RawConfig,
  rankOf: (p: string, at: string) => number,
  planList: readonly CompiledPlan[],
): CompiledDataset {
  const at = `datasets.${i} (${ds.path})`;
  if (!raw.upstreams.upstreams[ds.upstream]) {
    throw new ConfigError('datasets.yaml', `${at}.upstream`, `unknown upstream "${ds.upstream}" (not in upstreams.yaml)`);
  }
  const params = compileParamValidators(ds.list.params, (path, reason) => new ConfigError('datasets.yaml', `${at}.list.params.${path}`, reason));
  for (const [j, name] of ds.list.require_one_of.entries()) {
    if (!params.has(name)) throw new ConfigError('datasets.yaml', `${at}.list.require_one_of.${j}`, `"${name}" is not a declared parameter`);
  }
  const ranges = ds.list.ranges.map((r, j) => compileRange(r, params, `${at}.list.ranges.${j}`));
  if (ds.full_text_field !== undefined && !ds.fields[ds.full_text_field]) {
    throw new ConfigError('datasets.yaml', `${at}.full_text_field`, `"${ds.full_text_field}" is not declared under fields`);
  }
  const fields = Object.entries(ds.fields).map(([name, rule]) => fieldRule(name, rule, rankOf, at));
  const subresources = new Map<string, CompiledSubresource>();
  const datasetRank = rankOf(ds.min_plan, `${at}.min_plan`);
  for (const [name, sub] of Object.entries(ds.subresources)) {
    // A record's sub-resource is never open to a plan the record is not: /v1/datasets, the
    // OpenAPI document and the gate all read this one rank.
    const minRank = Math.max(datasetRank, rankOf(sub.min_plan, `${at}.subresources.${name}.min_plan`));
    subresources.set(name, { name, minPlan: planList[minRank]!.name, minRank, cost: sub.cost });
  }
  return {
    path: ds.path,
    upstream: ds.upstream,
    upstreamPath: ds.upstream_path ?? ds.path,
    idPrefix: ds.id_prefix,
    minRank: datasetRank,
    minPlan: ds.min_plan,
    cost: ds.cost,
    detail: ds.detail,
    bulkWatch: ds.bulk_watch,
    fullTextField: ds.full_text_field,
    fullTextPreview: ds.full_text_field !== undefined && ds.fields[ds.full_text_field]?.preview === true,
    params,
    requireOneOf: ds.list.require_one_of,
    ranges,
    fields,
    fieldPlans: new Map(planList.map((p) => [p.name, fieldPlan(fields, ds.full_text_field, p)])),
    subresources,
    source: ds,
  };
}

/** Cross-file checks and compilation (validators, CIDR matchers, plan ranks), done once per load. */
export function compileConfig(raw: RawConfig): RuntimeConfig {
  const planList: CompiledPlan[] = Object.entries(raw.plans.plans).map(([name, p], rank) => ({
    ...p,
    name,
    rank,
    meterLimits: { perSecond: p.per_second, perMinute: p.per_minute, daily: p.daily_calls, monthly: p.monthly_calls },
    chargeLimits: { perSecond: 0, perMinute: 0, daily: p.daily_calls, monthly: p.monthly_calls },
    rateLimitPolicy: `"second";q=${p.per_second};w=1, "minute";q=${p.per_minute};w=60, "day";q=${p.daily_calls};w=86400, "month";q=${p.monthly_calls};w=${MONTH_WINDOW_S}`,
  }));
  const plans = new Map(planList.map((p) => [p.name, p]));
  const rankOf = (plan: string, at: string): number => {
    const p = plans.get(plan);
    if (!p) throw new ConfigError('datasets.yaml', at, `unknown plan "${plan}" (plans.yaml has ${[...plans.keys()].join(', ')})`);
    return p.rank;
  };
  const datasets = new Map<string, CompiledDataset>();
  raw.datasets.datasets.forEach((ds, i) => {
    if (datasets.has(ds.path)) throw new ConfigError('datasets.yaml', `datasets.${i}.path`, `duplicate path "${ds.path}"`);
    if (['me', 'datasets', 'openapi.json'].includes(ds.path)) throw new ConfigError('datasets.yaml', `datasets.${i}.path`, `"${ds.path}" is reserved`);
    // An id's prefix names its dataset (API reference): two datasets sharing one would make an id ambiguous.
    const twin = [...datasets.values()].find((o) => ds.id_prefix !== undefined && o.idPrefix === ds.id_prefix);
    if (twin) throw new ConfigError('datasets.yaml', `datasets.${i}.id_prefix`, `"${ds.id_prefix}" is already the id_prefix of ${twin.path}`);
    datasets.set(ds.path, compileDataset(ds, i, raw, rankOf, planList));
  });
  let trustedProxy: IpMatcher;
  try {
    trustedProxy = compileIpMatcher(raw.gateway.trusted_proxies);
  } catch (err) {
    throw new ConfigError('gateway.yaml', 'trusted_proxies', (err as Error).message);
  }
  return { raw, plans, planList, datasets, upstreams: new Map(Object.entries(raw.upstreams.upstreams)), trustedProxy };
}
