import express from 'express';
import type { RuntimeConfig } from '../config/compile-config';
import { createDocsRouter } from '../openapi/docs-router';
import type { GatewayDeps } from './deps';
import { createGatewayHandler } from './handler';
import type { GatewayHandler } from './handler';

export interface GatewayApp {
  app: express.Express;
  config(): RuntimeConfig;
  /** Swaps in a pipeline built from a new config; requests in flight finish on the old one. */
  reload(config: RuntimeConfig): void;
  close(): void;
}

/** The public API app: one handler that runs the policy pipeline for every request. */
export function createApp(config: RuntimeConfig, deps: GatewayDeps): GatewayApp {
  let current: { config: RuntimeConfig; handler: GatewayHandler } = {
    config,
    handler: createGatewayHandler(config, deps),
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  app.use(createDocsRouter(() => current.config));
  app.use((req, res) => {
    void current.handler.handle(req, res);
  });
  return {
    app,
    config: () => current.config,
    reload(next) {
      const old = current;
      current = { config: next, handler: createGatewayHandler(next, deps) };
      // Old keep-alive pools close once requests already forwarded on them have had time to end.
      const grace = Math.max(...[...old.config.upstreams.values()].map((u) => u.timeout_ms), 1000) + 1000;
      setTimeout(() => old.handler.close(), grace).unref();
    },
    close() {
      current.handler.close();
    },
  };
}
