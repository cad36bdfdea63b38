import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import { ADMIN_PORT_METHODS } from '../admin/create-admin-app';
import { answerClientErrors } from '../gateway/client-error';
import type { OpsRoutes } from '../observability/ops-routes';
import { lacksHost } from '../util/host-header';
import { toOriginForm } from '../util/origin-form';

export interface RequestTimeouts {
  headersMs: number;
  requestMs: number;
}

/**
 * The public API takes GETs without a body, which arrive whole in one packet or a few: a request
 * still arriving after 20 s is a client holding the connection (slowloris), not a slow network.
 * Node's own limits (60 s, 300 s) would let one hold a socket fifteen times longer.
 */
export const PUBLIC_REQUEST_TIMEOUTS: RequestTimeouts = { headersMs: 20_000, requestMs: 30_000 };

/**
 * The public port's server. It answers a request without Host itself, in the envelope (the route
 * policy), and malformed requests in the envelope too (client-error.ts).
 */
export function createPublicServer(app: RequestListener, timeouts: RequestTimeouts): Server {
  const server = answerClientErrors(
    createServer(
      {
        requireHostHeader: false,
        headersTimeout: timeouts.headersMs,
        requestTimeout: timeouts.requestMs,
        // How often node looks for requests past their time: a tenth of the shorter limit, so a
        // connection is closed soon after its limit, not up to 30 s later.
        connectionsCheckingInterval: Math.max(50, Math.floor(timeouts.headersMs / 10)),
      },
      app,
    ),
  );
  server.keepAliveTimeout = 65_000;
  return server;
}

/**
 * The admin port's server: the unauthenticated operational routes first (scrapes and probes never
 * go through Express), then the admin API. A request without Host goes to the admin API, which
 * refuses it in the envelope.
 */
export function createAdminServer(ops: OpsRoutes, adminApp: RequestListener): Server {
  return answerClientErrors(
    createServer({ requireHostHeader: false }, (req, res) => {
      toOriginForm(req);
      if (lacksHost(req) || !ops(req, res)) adminApp(req, res);
    }),
    ADMIN_PORT_METHODS,
  );
}
