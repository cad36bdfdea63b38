import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { PolicyFactory } from '../policy';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A sane incoming X-Request-Id, or undefined. */
export function incomingRequestId(req: IncomingMessage): string | undefined {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SANE_ID.test(incoming) ? incoming : undefined;
}

/** A sane incoming X-Request-Id, or a new one. */
export function requestIdOf(req: IncomingMessage): string {
  return incomingRequestId(req) ?? randomUUID();
}

/**
 * Accepts a sane incoming X-Request-Id, or uses the gateway's own per-request id (already unique),
 * and every response echoes it (written by the response phase with the other headers).
 */
export const requestIdPolicy: PolicyFactory = () => ({
  name: 'request-id',
  handle(ctx) {
    ctx.requestId = incomingRequestId(ctx.req) ?? ctx.meterId;
  },
});
