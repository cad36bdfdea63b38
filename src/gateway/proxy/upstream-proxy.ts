import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { UpstreamConfig } from '../../config/upstreams-schema';
import { runNow } from '../../util/end-of-turn';
import type { Defer } from '../../util/end-of-turn';

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
  forward(fr: ForwardRequest): Promise<UpstreamReply>;
  close(): void;
}

/** Bodies larger than this are a broken upstream, not a dataset answer. */
const MAX_BODY = 32 * 1024 * 1024;

type Send = (opts: RequestOptions, onResponse: (res: IncomingMessage) => void) => ClientRequest;

/**
 * One upstream: a keep-alive pool of its own and a deadline per request. The gateway reads and
 * reshapes every answer, so nothing is piped: the request is node's HTTP client on the pool, and
 * only the headers an upstream needs go out (the id, the identity assertion, the caller's address),
 * never the caller's key or cookies. Requests go out through `defer` (the gateway's end-of-turn
 * queue): those of one turn leave back to back; the deadline runs from the call.
 */
export function createUpstreamProxy(name: string, cfg: UpstreamConfig, defer: Defer = runNow): UpstreamProxy {
  const target = new URL(cfg.url);
  const secure = target.protocol === 'https:';
  const poolOpts = { keepAlive: true, maxSockets: cfg.pool_size, maxFreeSockets: cfg.pool_size };
  const agent = secure ? new HttpsAgent(poolOpts) : new HttpAgent(poolOpts);
  const send: Send = secure ? httpsRequest : httpRequest;
  const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = target.port || (secure ? 443 : 80);
  const basePath = target.pathname.replace(/\/+$/, '');
  return {
    name,
    forward(fr) {
      return new Promise<UpstreamReply>((resolve, reject) => {
        let done = false;
        let req: ClientRequest | undefined;
        const fail = (err: Error): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          req?.destroy();
          reject(err);
        };
        const timer = setTimeout(
          () => fail(new Error(`upstream timeout after ${cfg.timeout_ms} ms`)),
          cfg.timeout_ms,
        );
        defer(() => {
          if (done) return;
          req = send(
            {
              agent,
              hostname,
              port,
              method: 'GET',
              path: basePath + fr.path,
              // A flat name/value list goes straight to the request head (no header map to fill).
              headers: [
                'Host',
                target.host,
                'Accept',
                'application/json',
                'X-Request-Id',
                fr.requestId,
                'Authorization',
                `Bearer ${fr.assertion}`,
                'X-Forwarded-For',
                fr.clientIp,
              ],
            },
            (res) => {
              const chunks: Buffer[] = [];
              let size = 0;
              res.on('data', (c: Buffer) => {
                size += c.length;
                if (size > MAX_BODY) fail(new Error('upstream body too large'));
                else chunks.push(c);
              });
              res.on('end', () => {
                if (done) return;
                done = true;
                clearTimeout(timer);
                resolve({
                  status: res.statusCode ?? 502,
                  body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size),
                });
              });
              res.on('error', fail);
              // 'close' follows every 'end' too: only build the error (a stack trace) when it is one.
              res.on('close', () => {
                if (!done) fail(new Error('upstream closed the connection mid-answer'));
              });
            },
          );
          req.on('error', fail);
          req.end();
        });
      });
    },
    close() {
      agent.destroy();
    },
  };
}
