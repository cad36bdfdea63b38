import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express from 'express';
import type { RuntimeConfig } from '../config/compile-config';
import { createDocsRouter } from '../openapi/docs-router';
import type { GatewayDeps } from './deps';
import { createGatewayHandler } from './handler';
import { createIpVolumeCheck } from './policies/ip-throttle';
import type { IpVolumeCheck } from './policies/ip-throttle';
import { readGatewayHeaders } from './request-headers';
import type { GatewayHandler } from './handler';
import type { UpstreamLoad } from './proxy/admission';
import { toOriginForm } from '../util/origin-form';

export interface GatewayApp {
  /** The public listener: give it to http.createServer or supertest. */
  app: RequestListener;
  config(): RuntimeConfig;
  /** Swaps in a pipeline built from a new config; requests in flight finish on the old one. */
  reload(config: RuntimeConfig): void;
  /**
   * Each upstream's connections in use and calls waiting for one, on the pipeline serving now
   * (calls still finishing on a pipeline a reload replaced are not in it).
   */
  upstreamLoad(): [string, UpstreamLoad][];
  close(): void;
}

/** Served by Express (static files, ETags); everything else goes straight to the pipeline. */
function isDocsPath(url: string): boolean {
  return url.startsWith('/docs') || url.startsWith('/v1/openapi.json');
}

/**
 * The public API: the policy pipeline for every request, except the documentation pages. The
 * pipeline takes node's request and response directly: Express' router and its request/response
 * decoration cost about a tenth of a call's CPU and the pipeline uses none of it.
 */
export function createApp(config: RuntimeConfig, deps: GatewayDeps): GatewayApp {
  let current: { config: RuntimeConfig; handler: GatewayHandler; ipCheck: IpVolumeCheck } = {
    config,
    handler: createGatewayHandler(config, deps),
    ipCheck: createIpVolumeCheck(config, deps),
  };
  const docs = express();
  docs.disable('x-powered-by');
  docs.set('etag', false);
  docs.set('query parser', false);
  // A request the documentation routes counted, then handed on (an unknown /docs/ path, a POST):
  // the pipeline counts it in the per-IP window again, so the first count is given back.
  const docsCounted = new WeakMap<IncomingMessage, string>();
  docs.use(
    createDocsRouter(
      () => current.config,
      async (req) => {
        const seen = await current.ipCheck(req, readGatewayHeaders(req.rawHeaders).forwardedFor);
        if (!seen.refusal) docsCounted.set(req, seen.windowKey);
        return seen.refusal;
      },
    ),
  );
  docs.use(async (req, res) => {
    const counted = docsCounted.get(req);
    if (counted !== undefined) await deps.ipWindow.reward(counted, 1);
    void current.handler.handle(req, res);
  });
  const app = (req: IncomingMessage, res: ServerResponse): void => {
    toOriginForm(req);
    if (isDocsPath(req.url ?? '/')) docs(req, res);
    else void current.handler.handle(req, res);
  };
  return {
    app,
    config: () => current.config,
    reload(next) {
      const old = current;
      current = {
        config: next,
        handler: createGatewayHandler(next, deps),
        ipCheck: createIpVolumeCheck(next, deps),
      };
      // Old keep-alive pools close after the longest deadline, each letting the requests still on it end.
      const grace = Math.max(...[...old.config.upstreams.values()].map((u) => u.timeout_ms), 1000) + 1000;
      setTimeout(() => old.handler.close(), grace).unref();
    },
    upstreamLoad: () => current.handler.upstreamLoad(),
    close() {
      current.handler.close();
    },
  };
}
