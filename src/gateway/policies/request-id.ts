import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { containsApiKey } from '../../accounts/api-keys';
import type { PolicyFactory } from '../policy';
import { readGatewayHeaders } from '../request-headers';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * An incoming X-Request-Id if it is sane, or undefined. One that holds an API key is not: it would be
 * logged, echoed and forwarded to the upstream, where a key must never go.
 */
export function saneRequestId(incoming: string | undefined): string | undefined {
  return incoming !== undefined && SANE_ID.test(incoming) && !containsApiKey(incoming) ? incoming : undefined;
}

/** A sane incoming X-Request-Id, or a new one. */
export function requestIdOf(req: IncomingMessage): string {
  return saneRequestId(readGatewayHeaders(req.rawHeaders).requestId) ?? randomUUID();
}

/**
 * Accepts a sane incoming X-Request-Id, or uses the gateway's own per-request id (already unique),
 * and every response echoes it (written by the response phase with the other headers).
 */
export const requestIdPolicy: PolicyFactory = () => ({
  name: 'request-id',
  handle(ctx) {
    ctx.requestId = saneRequestId(ctx.headers.requestId) ?? ctx.meterId;
  },
});
