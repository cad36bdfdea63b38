// node's global `performance` is a getter run on every read: imported instead.
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RuntimeConfig } from '../config/compile-config';
import { ApiError } from '../errors/api-error';
import { errorBody, logFailure, toApiError } from '../errors/render-error';
import { createEndOfTurn } from '../util/end-of-turn';
import { accessLog } from '../util/logger';
import { createUtf8Encoder } from '../util/utf8-slab';
import type { RequestContext } from './context';
import type { GatewayDeps } from './deps';
import { buildPolicies } from './pipeline';
import { readGatewayHeaders } from './request-headers';
import { createUpstreamProxy } from './proxy/upstream-proxy';
import type { UpstreamProxy } from './proxy/upstream-proxy';
import type { UpstreamLoad } from './proxy/admission';
import { answerDatasets, answerMe } from './response/account-endpoints';
import { finish } from './response/finish';
import type { Outcome, ResponseIo } from './response/finish';
import { forwardAndShape } from './response/forward-and-shape';

export interface GatewayHandler {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Each upstream's connections in use and calls waiting for one, now. */
  upstreamLoad(): [string, UpstreamLoad][];
  /** Closes this handler's upstream pools once in-flight requests had their time. */
  close(): void;
}

/** Builds the whole request path for one loaded config; a reload builds a new one and swaps it. */
export function createGatewayHandler(config: RuntimeConfig, deps: GatewayDeps): GatewayHandler {
  const policies = buildPolicies(config, deps);
  // One queue for the writes of a turn: responses to callers and requests to upstreams.
  const defer = createEndOfTurn((err) => deps.logger.error({ err }, 'unexpected error in a deferred write'));
  const io: ResponseIo = { access: accessLog(deps.logger), defer, utf8: createUtf8Encoder() };
  const done = (ctx: RequestContext, out: Outcome): Promise<void> => finish(ctx, config, deps, out, io);
  const proxies = new Map<string, UpstreamProxy>();
  for (const [name, up] of config.upstreams)
    proxies.set(name, createUpstreamProxy(name, up, defer, deps.upstreamMemory));
  return {
    async handle(req, res) {
      const ctx: RequestContext = {
        requestId: '',
        meterId: randomUUID(),
        startedAt: performance.now(),
        clientIp: '',
        req,
        res,
        headers: readGatewayHeaders(req.rawHeaders),
        query: [],
        // Every field from the start: one object shape for all requests keeps property reads monomorphic.
        queryError: undefined,
        route: undefined,
        principal: undefined,
        windows: undefined,
        upstreamQuery: undefined,
        page: undefined,
        perPage: undefined,
        reservation: undefined,
        usage: undefined,
        creditsLeft: undefined,
        upstreamStatus: undefined,
        upstreamMs: undefined,
        upstreamWaitMs: undefined,
      };
      try {
        for (const p of policies) {
          const r = p.handle(ctx);
          if (r) await r;
        }
        const route = ctx.route!;
        if (route.kind === 'me') return await done(ctx, await answerMe(ctx, config, deps));
        if (route.kind === 'datasets') return await done(ctx, answerDatasets(ctx, config));
        await done(ctx, await forwardAndShape(ctx, config, deps, proxies.get(route.dataset!.upstream)!));
      } catch (err) {
        const apiErr = toApiError(err);
        if (!(err instanceof ApiError))
          logFailure(deps.logger, err, 'unexpected error in pipeline', { req_id: ctx.requestId });
        await done(ctx, { status: apiErr.status, body: errorBody(apiErr), error: apiErr });
      }
    },
    upstreamLoad: () => [...proxies].map(([name, p]) => [name, p.load()]),
    close() {
      for (const p of proxies.values()) p.close();
    },
  };
}
