import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

export type RedisClient = Redis | Cluster;

/**
 * A Lua script run with EVALSHA (only the 40-byte digest on the wire), falling back to EVAL when
 * the server answers NOSCRIPT (restart, failover, SCRIPT FLUSH); EVAL also caches it again.
 * Either way a call is one round trip in the common case.
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly lua: string,
    readonly numberOfKeys: number,
  ) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  run(redis: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    if (keys.length !== this.numberOfKeys)
      return Promise.reject(new Error(`script wants ${this.numberOfKeys} keys`));
    return redis.evalsha(this.sha, this.numberOfKeys, ...keys, ...args).catch((err: unknown) => {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.lua, this.numberOfKeys, ...keys, ...args);
    });
  }
}
