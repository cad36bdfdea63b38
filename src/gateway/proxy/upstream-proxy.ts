import { Agent } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { UpstreamConfig } from '../../config/upstreams-schema';

export interface UpstreamReply {
  status: number;
  body: Buffer;
}

export interface ForwardRequest {
  /** Path and query on the upstream, e.g. /legal-documents?q=luat&page=1&per_page=20. */
  path: string;
  requestId: string;
  assertion: string;
  clientIp: string;
}

export interface UpstreamProxy {
  name: string;
  forward(req: IncomingMessage, res: ServerResponse, fr: ForwardRequest): Promise<UpstreamReply>;
  close(): void;
}

/** Bodies larger than this are a broken upstream, not a dataset answer. */
const MAX_BODY = 32 * 1024 * 1024;

/** Headers of the caller that never reach an upstream (the key above all). */
const STRIP = [
  'authorization',
  'x-api-key',
  'cookie',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'forwarded',
];

interface Pending {
  fr: ForwardRequest;
  resolve: (r: UpstreamReply) => void;
  reject: (e: Error) => void;
}

/**
 * One http-proxy-middleware instance per upstream with its own keep-alive pool and timeout. The
 * gateway shapes every answer, so responses are collected (selfHandleResponse), never piped.
 */
export function createUpstreamProxy(name: string, cfg: UpstreamConfig): UpstreamProxy {
  const agent = new Agent({ keepAlive: true, maxSockets: cfg.pool_size, maxFreeSockets: cfg.pool_size });
  const pending = new WeakMap<IncomingMessage, Pending>();
  const middleware = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: cfg.url,
    changeOrigin: true,
    selfHandleResponse: true,
    agent,
    proxyTimeout: cfg.timeout_ms,
    pathRewrite: (_path, req) => pending.get(req)?.fr.path ?? '/',
    on: {
      proxyReq(proxyReq, req) {
        const p = pending.get(req);
        for (const h of STRIP) proxyReq.removeHeader(h);
        if (!p) return;
        proxyReq.setHeader('x-request-id', p.fr.requestId);
        proxyReq.setHeader('authorization', `Bearer ${p.fr.assertion}`);
        proxyReq.setHeader('x-forwarded-for', p.fr.clientIp);
      },
      proxyRes(proxyRes, req) {
        const p = pending.get(req);
        if (!p) return;
        const chunks: Buffer[] = [];
        let size = 0;
        proxyRes.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) {
            proxyRes.destroy();
            p.reject(new Error('upstream body too large'));
            return;
          }
          chunks.push(c);
        });
        proxyRes.on('end', () =>
          p.resolve({ status: proxyRes.statusCode ?? 502, body: Buffer.concat(chunks) }),
        );
        proxyRes.on('error', (e) => p.reject(e));
      },
      error(err, req) {
        pending.get(req)?.reject(err);
      },
    },
  });
  return {
    name,
    forward(req, res, fr) {
      return new Promise<UpstreamReply>((resolve, reject) => {
        pending.set(req, { fr, resolve, reject });
        void middleware(req, res, () => reject(new Error('proxy did not handle the request')));
      });
    },
    close() {
      agent.destroy();
    },
  };
}
