import { createHash } from 'node:crypto';
import type { RuntimeConfig } from '../config/compile-config';
import { ACCOUNT_SCHEMAS } from './account-schemas';
import { ACCOUNT_TAG, META_TAG, accountPaths } from './account-paths';
import { bi } from './bilingual';
import { ENVELOPE_SCHEMAS } from './envelope-schemas';
import { errorSchemas } from './errors';
import { HEADER_COMPONENTS } from './headers';
import { infoDescription } from './info-text';
import type { OpenApiDocument, PathItemObject, ResponseObject, TagObject } from './openapi-types';
import { datasetPaths, tagOf } from './operations';
import { paginationParameters } from './parameters';
import { SchemaRegistry, datasetRecords } from './record-components';

function datasetTags(config: RuntimeConfig): TagObject[] {
  const groups = new Map<string, { vi: string[]; en: string[] }>();
  for (const ds of config.datasets.values()) {
    const g = groups.get(tagOf(ds)) ?? { vi: [], en: [] };
    g.vi.push(ds.source.title_vi ?? ds.path);
    g.en.push(`${ds.source.title ?? ds.path}${ds.source.description ? ` — ${ds.source.description}` : ''}`);
    groups.set(tagOf(ds), g);
  }
  return [...groups].map(([name, g]) => ({ name, description: bi(g.vi.join('; '), g.en.join('; ')) }));
}

/** The OpenAPI 3.1 document of one configuration: every path, parameter and rule comes from it. */
export function buildOpenApi(config: RuntimeConfig): OpenApiDocument {
  const planByRank = config.planList.map((p) => p.name);
  const registry = new SchemaRegistry();
  const responses: Record<string, ResponseObject> = {};
  const paths: Record<string, PathItemObject> = {};
  for (const ds of config.datasets.values()) {
    const records = datasetRecords(ds, planByRank, registry);
    Object.assign(paths, datasetPaths({ config, ds, records, responses }));
  }
  Object.assign(paths, accountPaths(config, responses));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Lookup API — API tra cứu văn bản pháp luật và dữ liệu công',
      version: '1',
      summary:
        'API REST chỉ đọc tra cứu dữ liệu pháp luật và dữ liệu công của Việt Nam / Read-only REST API over Vietnamese legal and public datasets.',
      description: infoDescription(config),
      license: { name: 'Proprietary', url: config.raw.plans.upgrade_url },
    },
    servers: [{ url: '/', description: 'Máy chủ này / This server' }],
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    tags: [
      ...datasetTags(config),
      { name: ACCOUNT_TAG, description: bi('Tài khoản và khám phá.', 'Account and discovery.') },
      { name: META_TAG, description: bi('Tài liệu API.', 'API description.') },
    ],
    paths,
    components: {
      schemas: { ...ENVELOPE_SCHEMAS, ...errorSchemas(), ...ACCOUNT_SCHEMAS, ...registry.schemas },
      parameters: paginationParameters(config),
      headers: HEADER_COMPONENTS,
      responses,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <API_KEY>',
        },
        apiKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Api-Key',
          description: 'X-Api-Key: <API_KEY>',
        },
      },
    },
    'x-plans': config.planList.map((p) => ({
      name: p.name,
      rank: p.rank,
      monthly_calls: p.monthly_calls,
      daily_calls: p.daily_calls,
      per_minute: p.per_minute,
      per_second: p.per_second,
      per_page_max: p.per_page_max,
      max_page: p.max_page,
      full_text_daily: p.full_text_daily,
      ip_allowlist: p.ip_allowlist,
      extra_credits: p.extra_credits,
      bulk_watch: p.bulk_watch,
    })),
  };
}

export interface ServedDocument {
  doc: OpenApiDocument;
  json: string;
  /** Strong validator of `json`, so clients and Swagger UI can revalidate cheaply. */
  etag: string;
}

const memo = new WeakMap<RuntimeConfig, ServedDocument>();

/**
 * Once per config object: a hot reload compiles a new RuntimeConfig, so the document follows it,
 * and the old one is collected with the old config.
 */
export function openApiFor(config: RuntimeConfig): ServedDocument {
  let hit = memo.get(config);
  if (!hit) {
    const doc = buildOpenApi(config);
    const json = JSON.stringify(doc);
    hit = { doc, json, etag: `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"` };
    memo.set(config, hit);
  }
  return hit;
}
