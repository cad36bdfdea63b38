import type { RuntimeConfig } from '../config/compile-config';
import type { RequestContext } from './context';
import type { GatewayDeps } from './deps';

/** One named step of the request pipeline: it passes, fills the context, or throws an ApiError. */
export interface Policy {
  name: string;
  handle(ctx: RequestContext): void | Promise<void>;
}

/** Every policy is built the same way, once per loaded config: (config, deps) => policy. */
export type PolicyFactory = (config: RuntimeConfig, deps: GatewayDeps) => Policy;
