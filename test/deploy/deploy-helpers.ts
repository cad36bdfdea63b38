/**
 * Shared helpers for the deployment tests: kustomize builds, Kubernetes schema validation,
 * PromQL metric-name extraction, and the Dockerfile / .dockerignore parsers.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import {
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const DEPLOY_DIR = join(REPO_ROOT, 'deploy');

/** A manifest as kustomize prints it; the typed models below give field-level types. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: never) => Validatable;

/** Every kind the overlays may emit; anything else fails the build test until a model is added. */
const MODELS: Readonly<Record<string, ModelClass>> = {
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

/** Validates one object against its Kubernetes (or Prometheus Operator) JSON schema; throws on an unknown kind. */
export function validateObject(obj: K8sObject): void {
  const model = MODELS[`${obj.apiVersion}/${obj.kind}`];
  if (model === undefined) {
    throw new Error(
      `no schema for ${obj.apiVersion} ${obj.kind} "${obj.metadata.name}": add its kubernetes-models class to MODELS`,
    );
  }
  new model(obj as never).validate();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `kubectl kustomize deploy/k8s/overlays/<overlay>`, parsed into objects. */
export function kustomizeBuild(overlay: string): K8sObject[] {
  const dir = join(DEPLOY_DIR, 'k8s', 'overlays', overlay);
  let out: string;
  try {
    out = execFileSync('kubectl', ['kustomize', dir], {
      encoding: 'utf8',
      maxBuffer: 32 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    if (isRecord(err) && err.code === 'ENOENT') {
      throw new Error(
        'kubectl is not installed: run deploy/ensure-kubectl.sh (needs kubectl >= 1.27, kustomize v5)',
      );
    }
    const stderr = isRecord(err) && typeof err.stderr === 'string' ? err.stderr : '';
    throw new Error(
      `kubectl kustomize ${overlay} failed: ${stderr || (err instanceof Error ? err.message : 'unknown error')}`,
    );
  }
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(out)) {
    if (doc.errors.length > 0)
      throw new Error(`kustomize output is not valid YAML: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (
      !isRecord(value) ||
      typeof value.apiVersion !== 'string' ||
      typeof value.kind !== 'string' ||
      !isRecord(value.metadata) ||
      typeof value.metadata.name !== 'string'
    ) {
      throw new Error(
        `kustomize emitted an object without apiVersion/kind/metadata.name: ${JSON.stringify(value)}`,
      );
    }
    objects.push(value as K8sObject);
  }
  return objects;
}

/** The objects of one kind, as their typed model (already schema-validated by the build test). */
export function ofKind<T>(objects: readonly K8sObject[], kind: string, model: new (data: never) => T): T[] {
  return objects.filter((o) => o.kind === kind).map((o) => new model(o as never));
}

export function byName<T extends { metadata?: { name?: string } }>(items: readonly T[], name: string): T {
  const found = items.find((i) => i.metadata?.name === name);
  if (found === undefined) throw new Error(`no object named ${name}`);
  return found;
}

/** Does a matchLabels / matchExpressions selector select these labels? */
export function selectorMatches(
  selector:
    | {
        matchLabels?: Record<string, string>;
        matchExpressions?: { key: string; operator: string; values?: string[] }[];
      }
    | undefined,
  labels: Record<string, string>,
): boolean {
  if (selector === undefined) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const value = labels[e.key];
    const values = e.values ?? [];
    const ok =
      e.operator === 'In'
        ? has && values.includes(value!)
        : e.operator === 'NotIn'
          ? !has || !values.includes(value!)
          : e.operator === 'Exists'
            ? has
            : e.operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

export function readRepoFile(relPath: string): string {
  return readFileSync(join(REPO_ROOT, relPath), 'utf8');
}

// ---- PromQL -------------------------------------------------------------------------------------

/** Metrics the application exports (DESIGN / deployment contract), with their labels. */
export const KNOWN_METRICS: Readonly<Record<string, readonly string[]>> = {
  lookup_http_requests_total: ['dataset', 'status', 'code', 'plan'],
  lookup_http_request_duration_seconds: ['dataset'],
  lookup_upstream_request_duration_seconds: ['upstream'],
  lookup_upstream_up: ['upstream'],
  lookup_upstream_failures_total: ['upstream', 'reason'],
  lookup_upstream_connections_in_use: ['upstream'],
  lookup_upstream_queued_requests: ['upstream'],
  lookup_quota_reservations_total: ['result'],
  lookup_readiness_check: ['check'],
  lookup_quota_refunds_total: ['reason'],
  lookup_quota_rejections_total: ['reason'],
  lookup_store_fallback_active: [],
  lookup_config_reloads_total: ['result'],
  lookup_config_reload_failing: [],
  lookup_quota_refund_failures_total: [],
  lookup_key_cache_lookups_total: ['result'],
  lookup_bulk_locks_total: ['dataset'],
  lookup_dataset_size_unknown: ['dataset'],
  lookup_upstream_http_requests_total: ['dataset', 'status'],
};
const HISTOGRAMS = new Set([
  'lookup_http_request_duration_seconds',
  'lookup_upstream_request_duration_seconds',
]);
/** Labels Prometheus adds to every scraped series (ServiceMonitor target labels). */
export const TARGET_LABELS: readonly string[] = [
  'namespace',
  'pod',
  'job',
  'instance',
  'service',
  'endpoint',
  'container',
];

const PROMQL_KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'inf',
  'nan',
]);

export interface MetricRef {
  name: string;
  labels: string[];
}

/** The metric selectors of a PromQL expression: names plus the label names in their {} matchers. */
export function promqlMetricRefs(expr: string): MetricRef[] {
  let s = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\$\{[^}]*\}|\$[A-Za-z_]\w*/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const refs: MetricRef[] = [];
  const ident = /(?<![\w.:])([A-Za-z_:][\w:]*)\s*(\{[^}]*\}|\()?/g;
  s = s.replace(ident, (_m: string, name: string, tail: string | undefined) => {
    if (tail === '(' || PROMQL_KEYWORDS.has(name.toLowerCase())) return ' ';
    const labels =
      tail === undefined ? [] : [...tail.matchAll(/([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1]!);
    refs.push({ name, labels });
    return ' ';
  });
  // A bare {label="x"} selector names no metric: reject it, the checks below need names.
  if (/\{/.test(s)) throw new Error(`selector without a metric name in: ${expr}`);
  return refs;
}

/** Why a metric reference is not one the application exports (undefined when it is). */
export function unknownMetricProblem(ref: MetricRef, extraNames: readonly string[] = []): string | undefined {
  if (extraNames.includes(ref.name)) return undefined;
  if (/^(process|nodejs)_/.test(ref.name)) return undefined;
  let base = ref.name;
  let extraLabels: string[] = [];
  const hist = /^(.*)_(bucket|sum|count)$/.exec(ref.name);
  if (hist !== null && HISTOGRAMS.has(hist[1]!)) {
    base = hist[1]!;
    if (hist[2] === 'bucket') extraLabels = ['le'];
  } else if (HISTOGRAMS.has(ref.name)) {
    return `${ref.name} is a histogram: use _bucket, _sum or _count`;
  }
  const labels = KNOWN_METRICS[base];
  if (labels === undefined) return `unknown metric ${ref.name}`;
  const allowed = new Set([...labels, ...extraLabels, ...TARGET_LABELS]);
  const bad = ref.labels.filter((l) => !allowed.has(l));
  return bad.length > 0 ? `${ref.name} has no label(s) ${bad.join(', ')}` : undefined;
}

// ---- Dockerfile and .dockerignore ---------------------------------------------------------------

export interface DockerInstruction {
  keyword: string;
  args: string;
  line: number;
}

/** Splits a Dockerfile into instructions: joins `\` continuations, drops comments and directives. */
export function parseDockerfile(text: string): DockerInstruction[] {
  const out: DockerInstruction[] = [];
  let pending = '';
  let startLine = 0;
  text.split(/\r?\n/).forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith('#')) return; // comments, also inside continuations (as BuildKit does)
    if (pending === '' && trimmed === '') return;
    if (pending === '') startLine = i + 1;
    if (trimmed.endsWith('\\')) {
      pending += trimmed.slice(0, -1) + ' ';
      return;
    }
    pending += trimmed;
    const m = /^(\S+)\s*([\s\S]*)$/.exec(pending.trim());
    if (m !== null) out.push({ keyword: m[1]!.toUpperCase(), args: m[2]!.trim(), line: startLine });
    pending = '';
  });
  if (pending.trim() !== '') throw new Error('Dockerfile ends inside a line continuation');
  return out;
}

/** Splits instruction arguments, JSON (exec) form or shell-words form. */
export function splitArgs(args: string): string[] {
  if (args.startsWith('[')) {
    const parsed: unknown = JSON.parse(args);
    if (!Array.isArray(parsed) || !parsed.every((a): a is string => typeof a === 'string')) {
      throw new Error(`bad JSON array: ${args}`);
    }
    return parsed;
  }
  return args.split(/\s+/).filter((a) => a !== '');
}

function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        i++;
        if (pattern[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else {
          re += '.*';
        }
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) throw new Error(`unterminated [ in ${pattern}`);
      re += '[' + pattern.slice(i + 1, end).replace(/^!/, '^') + ']';
      i = end;
    } else if (c === '\\') {
      i++;
      re += (pattern[i] ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else {
      re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  return new RegExp('^' + re + '$');
}

function cleanPath(p: string): string {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

/** .dockerignore semantics (moby/patternmatcher): last matching rule wins; a match on a parent excludes. */
export function dockerignoreMatcher(text: string): (relPath: string) => boolean {
  const rules = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const pattern = cleanPath((negate ? l.slice(1) : l).trim());
      return { negate, re: globToRegExp(pattern) };
    });
  return (relPath: string): boolean => {
    const path = cleanPath(relPath);
    if (path === '') return false;
    const segs = path.split('/');
    let excluded = false;
    for (const rule of rules) {
      let hit = false;
      for (let n = 1; n <= segs.length && !hit; n++) hit = rule.re.test(segs.slice(0, n).join('/'));
      if (hit) excluded = !rule.negate;
    }
    return excluded;
  };
}
