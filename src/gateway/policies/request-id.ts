import { randomUUID } from 'node:crypto';
import type { PolicyFactory } from '../policy';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accepts a sane incoming X-Request-Id or makes one, and echoes it on every response. */
export const requestIdPolicy: PolicyFactory = () => ({
  name: 'request-id',
  handle(ctx) {
    const incoming = ctx.req.headers['x-request-id'];
    ctx.requestId = typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : randomUUID();
    ctx.res.setHeader('X-Request-Id', ctx.requestId);
    ctx.res.setHeader('X-Content-Type-Options', 'nosniff');
  },
});
