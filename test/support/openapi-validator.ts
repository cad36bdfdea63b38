import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { join } from 'node:path';
import { buildOpenApi } from '../../src/openapi/build-openapi';
import { loadConfig } from '../../src/runtime/config-source';

/** What a test got back: supertest's response and fetch results both fit. */
export interface HttpResult {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

type Json = Record<string, unknown>;

interface Operation {
  template: string;
  operationId: string;
  responses: Json;
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One JSON pointer segment, URI-encoded for use in a $ref fragment ("{id}" has braces). */
const seg = (s: string): string => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));
const pointer = (parts: string[]): string => parts.map(seg).join('/');

function formatErrors(prefix: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})`
        : e.keyword === 'enum'
          ? ` (${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`
          : '';
    return `${prefix}${e.instancePath || '/'}: ${e.message ?? e.keyword}${extra}`;
  });
}

export interface OpenApiValidator {
  /** Problems of one response against the document, empty when it matches. */
  problems(res: HttpResult, method: 'get', path: string): string[];
  /** Throws a readable error listing every mismatch. */
  expectMatchesOpenApi(res: HttpResult, method: 'get', path: string): void;
  /** The operation a concrete request path resolves to, e.g. /v1/legal-documents/{id}. */
  operationFor(method: 'get', path: string): { template: string; operationId: string } | undefined;
}

/** A validator over one OpenAPI 3.1 document: operation lookup by concrete path, then Ajv (2020-12). */
export function createOpenApiValidator(doc: unknown): OpenApiValidator {
  if (!isObj(doc) || !isObj(doc.paths)) throw new Error('not an OpenAPI document');
  // strict: false because OpenAPI schemas carry annotation keywords (x-min-plan, x-error-catalogue)
  // that Ajv's strict mode refuses; formats are still checked (date, date-time, uri, email).
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi.json');
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (parts: string[]): ValidateFunction => {
    const ref = `openapi.json#/${pointer(parts)}`;
    let v = compiled.get(ref);
    if (!v) compiled.set(ref, (v = ajv.compile({ $ref: ref })));
    return v;
  };
  const paths = doc.paths;
  const templates = Object.keys(paths)
    .map((t) => ({
      template: t,
      params: (t.match(/\{[^}]+\}/g) ?? []).length,
      re: new RegExp(
        '^' +
          t
            .split(/\{[^}]+\}/)
            .map((s) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
            .join('[^/]+') +
          '$',
      ),
    }))
    // Literal paths win over templated ones (/v1/catalogs/agencies before /v1/catalogs/{id}).
    .sort((a, b) => a.params - b.params);

  const resolveRef = (node: unknown, at: string[]): { node: unknown; at: string[] } => {
    if (isObj(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      const parts = node.$ref
        .slice(2)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
      let cur: unknown = doc;
      for (const p of parts) cur = isObj(cur) ? cur[p] : undefined;
      return { node: cur, at: parts };
    }
    return { node, at };
  };

  const findOperation = (method: 'get', path: string): Operation | undefined => {
    const bare = path.split('?')[0]!;
    for (const t of templates) {
      if (!t.re.test(bare)) continue;
      const item = paths[t.template];
      const op = isObj(item) ? item[method] : undefined;
      if (isObj(op) && isObj(op.responses) && typeof op.operationId === 'string')
        return { template: t.template, operationId: op.operationId, responses: op.responses };
    }
    return undefined;
  };

  const problems = (res: HttpResult, method: 'get', path: string): string[] => {
    const op = findOperation(method, path);
    if (!op) return [`no operation in the document matches ${method.toUpperCase()} ${path.split('?')[0]}`];
    const key = [String(res.status), `${String(res.status)[0]}XX`, 'default'].find((k) => k in op.responses);
    if (!key) {
      return [
        `status ${res.status} is not documented for ${op.operationId} (documented: ${Object.keys(op.responses).join(', ')})`,
      ];
    }
    const { node: response, at } = resolveRef(op.responses[key], [
      'paths',
      op.template,
      method,
      'responses',
      key,
    ]);
    if (!isObj(response)) return [`response ${key} of ${op.operationId} cannot be resolved`];
    const out: string[] = [];
    const headers = new Map(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), v]));
    for (const [name, h] of Object.entries(isObj(response.headers) ? response.headers : {})) {
      const { node: header, at: hAt } = resolveRef(h, [...at, 'headers', name]);
      if (!isObj(header)) continue;
      const value = headers.get(name.toLowerCase());
      if (value === undefined) {
        if (header.required === true) out.push(`header ${name}: missing (required)`);
        continue;
      }
      const validate = validatorAt([...hAt, 'schema']);
      if (!validate(Array.isArray(value) ? value.join(', ') : value))
        out.push(...formatErrors(`header ${name}`, validate.errors));
    }
    const content = isObj(response.content) ? response.content : undefined;
    if (!content) return out;
    const type = String(headers.get('content-type') ?? '');
    if (!type.startsWith('application/json')) {
      out.push(`content-type is "${type}", expected application/json`);
      return out;
    }
    const validate = validatorAt([...at, 'content', 'application/json', 'schema']);
    if (!validate(res.body)) out.push(...formatErrors('body', validate.errors));
    return out;
  };

  return {
    problems,
    operationFor(method, path) {
      const op = findOperation(method, path);
      return op && { template: op.template, operationId: op.operationId };
    },
    expectMatchesOpenApi(res, method, path) {
      const found = problems(res, method, path);
      if (found.length === 0) return;
      const op = findOperation(method, path);
      const body = JSON.stringify(res.body);
      throw new Error(
        `${method.toUpperCase()} ${path} → ${res.status} does not match the OpenAPI document` +
          (op ? ` (${op.operationId}, ${op.template})` : '') +
          `:\n  - ${found.slice(0, 20).join('\n  - ')}` +
          (found.length > 20 ? `\n  … and ${found.length - 20} more` : '') +
          `\n  body: ${body === undefined ? '(none)' : body.slice(0, 1500)}`,
      );
    },
  };
}

let repoValidator: OpenApiValidator | undefined;

/**
 * Validates a response against the document generated from the repository's config/: the
 * operation for the concrete path, the response for the status, body and headers.
 */
export function expectMatchesOpenApi(
  res: { status: number; body: unknown; headers: Record<string, string> },
  method: 'get',
  path: string,
): void {
  repoValidator ??= createOpenApiValidator(buildOpenApi(loadConfig(join(__dirname, '..', '..', 'config'))));
  repoValidator.expectMatchesOpenApi(res, method, path);
}
