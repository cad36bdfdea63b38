import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { PolicyFactory } from '../policy';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A sane incoming X-Request-Id, or a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
}

/** Accepts a sane incoming X-Request-Id or makes one, and echoes it on every response. */
export const requestIdPolicy: PolicyFactory = () => ({
  name: 'request-id',
  handle(ctx) {
    ctx.requestId = requestIdOf(ctx.req);
    ctx.res.setHeader('X-Request-Id', ctx.requestId);
    ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
  },
});
