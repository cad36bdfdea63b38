import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { z } from 'zod';
import { datasetsFileSchema } from './datasets-schema';
import type { DatasetsFile } from './datasets-schema';
import { gatewayFileSchema } from './gateway-schema';
import type { GatewayFile } from './gateway-schema';
import { plansFileSchema } from './plans-schema';
import type { PlansFile } from './plans-schema';
import { upstreamsFileSchema } from './upstreams-schema';
import type { UpstreamsFile } from './upstreams-schema';

export interface RawConfig {
  plans: PlansFile;
  datasets: DatasetsFile;
  upstreams: UpstreamsFile;
  gateway: GatewayFile;
}

/** A config that cannot be used: names the file, the path inside it and the reason. */
export class ConfigError extends Error {
  constructor(
    readonly file: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${file}: ${path || '(root)'}: ${reason}`);
  }
}

/**
 * A YAML file with one non-ASCII character (a Vietnamese description) is read as a two-byte string,
 * and every key and value parsed out of it is a slice of it: two-byte too, and keeping the whole
 * text alive. Strings the gateway builds from config on every request (headers, upstream paths, log
 * lines) would then all take V8's two-byte paths when written out. Each string is copied into one
 * of its own; ASCII ones come out one-byte.
 */
function ownStrings(value: unknown): unknown {
  if (typeof value === 'string') return Buffer.from(value, 'utf8').toString('utf8');
  if (Array.isArray(value)) return value.map(ownStrings);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [ownStrings(k), ownStrings(v)]));
  }
  return value;
}

function loadFile<S extends z.ZodType>(dir: string, file: string, schema: S): z.infer<S> {
  let text: string;
  try {
    text = readFileSync(join(dir, file), 'utf8');
  } catch (err) {
    throw new ConfigError(file, '', `cannot read: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = ownStrings(parse(text, { prettyErrors: true, uniqueKeys: true }));
  } catch (err) {
    throw new ConfigError(file, '', `invalid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  // An empty file is a truncated one far more often than a wish for every default: gateway.yaml,
  // whose settings all have defaults, would otherwise reset them all (trusted proxies among them).
  if (doc === null || doc === undefined)
    throw new ConfigError(file, '', 'the file is empty (to take every default, write {})');
  const res = schema.safeParse(doc);
  if (!res.success) {
    const issue = res.error.issues[0]!;
    // A bad name in a map (an upstream, a parameter) says why, not only "Invalid key in record".
    const why = issue.code === 'invalid_key' ? issue.issues[0]?.message : undefined;
    throw new ConfigError(file, readablePath(doc, issue.path), why ? `invalid name: ${why}` : issue.message);
  }
  return res.data;
}

/**
 * The dotted path of a problem, with each list item named by its `path` when it has one
 * (`datasets.31 (fuel-prices).list.params`), so nobody counts 31 entries to find it.
 */
function readablePath(doc: unknown, path: readonly PropertyKey[]): string {
  let node: unknown = doc;
  return path
    .map((seg) => {
      node = typeof node === 'object' && node !== null ? (node as Record<PropertyKey, unknown>)[seg] : undefined;
      const name = typeof node === 'object' && node !== null ? (node as { path?: unknown }).path : undefined;
      return typeof seg === 'number' && typeof name === 'string' ? `${seg} (${name})` : String(seg);
    })
    .join('.');
}

/** The four files of CONFIG_DIR (DESIGN §3). */
export const CONFIG_FILES = ['plans.yaml', 'datasets.yaml', 'upstreams.yaml', 'gateway.yaml'] as const;

/** Reads and validates gateway.yaml alone (the admin CLI's default port). */
export const loadGatewayFile = (dir: string): GatewayFile => loadFile(dir, 'gateway.yaml', gatewayFileSchema);

/** Reads and validates the four YAML files of CONFIG_DIR (DESIGN §3). Cross-file checks are in compileConfig. */
export function loadRawConfig(dir: string): RawConfig {
  return {
    plans: loadFile(dir, 'plans.yaml', plansFileSchema),
    datasets: loadFile(dir, 'datasets.yaml', datasetsFileSchema),
    upstreams: loadFile(dir, 'upstreams.yaml', upstreamsFileSchema),
    gateway: loadGatewayFile(dir),
  };
}
