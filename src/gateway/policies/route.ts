import type { CompiledDataset, RuntimeConfig } from '../../config/compile-config';
import { ApiError } from '../../errors/api-error';
import type { ResolvedRoute } from '../context';
import type { PolicyFactory } from '../policy';
import { nonEmptyParts } from '../../util/split-parts';
import { parseQuery } from './parse-query';
import { lacksHost, NO_HOST_MESSAGE } from '../../util/host-header';

const ID_SHAPE = /^[a-z][a-z0-9]*_[A-Za-z0-9_-]{1,64}$/;

const BAD_PATH = 'Đường dẫn có mã hóa phần trăm (percent-encoding) không hợp lệ.';
const FRAGMENT = "Đường dẫn yêu cầu không được chứa '#': phần fragment của URL không gửi lên máy chủ.";

function decodeSegments(path: string): string[] | undefined {
  const segs = nonEmptyParts(path, '/');
  if (!path.includes('%')) return segs;
  try {
    return segs.map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

function findDataset(config: RuntimeConfig, segs: string[]): [CompiledDataset, string[]] | undefined {
  // Longest path first: "catalogs/agencies" before a one-segment dataset named "catalogs".
  if (segs.length >= 2) {
    const two = config.datasets.get(`${segs[0]}/${segs[1]}`);
    if (two) return [two, segs.slice(2)];
  }
  const one = segs[0] !== undefined ? config.datasets.get(segs[0]) : undefined;
  return one ? [one, segs.slice(1)] : undefined;
}

export function resolveRoute(config: RuntimeConfig, segs: string[]): ResolvedRoute | undefined {
  // A dot segment (".", "..", or encoded) is path syntax a client left unresolved, never an id:
  // a mistyped endpoint, which costs nothing, as /v1/./legal-documents already was.
  if (segs.some((s) => s === '.' || s === '..')) return undefined;
  if (segs.length === 1 && segs[0] === 'me') return { kind: 'me', label: 'me' };
  if (segs.length === 1 && segs[0] === 'datasets') return { kind: 'datasets', label: 'datasets' };
  const found = findDataset(config, segs);
  if (!found) return undefined;
  const [dataset, rest] = found;
  const label = dataset.path;
  if (rest.length === 0) return { kind: 'list', dataset, label };
  if (!dataset.detail || rest.length > 2) return undefined;
  const id = rest[0]!;
  const unknownId = !ID_SHAPE.test(id) || !id.startsWith(dataset.idPrefix ?? '');
  if (rest.length === 1) return { kind: 'detail', dataset, id, unknownId, label };
  const subresource = dataset.subresources.get(rest[1]!);
  if (!subresource) return undefined;
  return { kind: 'subresource', dataset, id, subresource, unknownId, label: `${label}/${subresource.name}` };
}

/** Resolves /v1/{dataset}[/{id}[/{sub}]]; an unknown dataset or endpoint is a 404 that costs nothing. */
export const routePolicy: PolicyFactory = (config) => ({
  name: 'route',
  handle(ctx) {
    const url = ctx.req.url ?? '/';
    if (url.length > config.raw.gateway.max_url_length)
      throw new ApiError('invalid_request', { message: 'URL quá dài.' });
    if (ctx.req.method !== 'GET') throw new ApiError('method_not_allowed');
    if (lacksHost(ctx.req)) throw new ApiError('invalid_request', { message: NO_HOST_MESSAGE });
    // A request target never holds a fragment (RFC 9112 §3.2): a raw '#' is the client's mistake,
    // not part of a parameter's value or of an id.
    if (url.includes('#')) throw new ApiError('invalid_request', { message: FRAGMENT });
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const segs = decodeSegments(path);
    if (!segs) throw new ApiError('invalid_request', { message: BAD_PATH });
    if (segs[0] !== 'v1') throw new ApiError('not_found');
    const route = resolveRoute(config, segs.slice(1));
    if (!route) throw new ApiError('not_found');
    ctx.route = route;
    const parsed = parseQuery(q === -1 ? '' : url.slice(q + 1));
    ctx.query = parsed.pairs;
    ctx.queryError = parsed.error;
  },
});
