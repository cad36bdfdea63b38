/**
 * One address of REDIS_URL (`redis://`, `rediss://`, `redis+cluster://`, `rediss+cluster://`), read
 * the one way both the start-up check of the environment and the Redis client read it. No ioredis
 * here: the environment is checked before anything else is loaded.
 */
export interface RedisSeed {
  host: string;
  port: number;
  username: string;
  password: string;
  tls: boolean;
  cluster: boolean;
  /** The database index of the path (`redis://host:6379/2`); 0 without one. A cluster has only 0. */
  db: number;
}

/** A database index REDIS_URL cannot have; `reason` completes "REDIS_URL …" for the start-up check. */
export class RedisDatabaseError extends Error {
  constructor(readonly reason: string) {
    super(`REDIS_URL ${reason}`);
  }
}

const SCHEMES: Record<string, { tls: boolean; cluster: boolean }> = {
  'redis:': { tls: false, cluster: false },
  'rediss:': { tls: true, cluster: false },
  'redis+cluster:': { tls: false, cluster: true },
  'rediss+cluster:': { tls: true, cluster: true },
};

export function parseRedisSeed(raw: string): RedisSeed {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    // Named in the start's fatal log line: without what may be a password.
    throw new Error(`REDIS_URL: "${raw.replace(/\/\/[^/]*@/, '//…@')}" is not a URL (redis://host:port)`);
  }
  const scheme = SCHEMES[u.protocol];
  if (!scheme || !u.hostname) {
    throw new Error(
      `REDIS_URL: "${u.protocol}//${u.host}" is not a redis://, rediss:// or redis+cluster:// address`,
    );
  }
  // ioredis reads the path as the index itself, and a path it cannot read (`/abc`) would only fail
  // at the first connect, in a rejection nobody handles: read it here, at start.
  const path = u.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,5}$/.test(path)) {
    throw new RedisDatabaseError(`must name a database by its index (redis://host:6379/0), not "${path}"`);
  }
  const db = path === '' ? 0 : Number(path);
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : 6379,
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    db,
    ...scheme,
  };
}

/**
 * REDIS_URL whole: one address, or a cluster's seeds comma-separated. A cluster (several seeds or a
 * `+cluster` scheme) has only database 0, so naming another is refused rather than ignored.
 */
export function parseRedisAddresses(raw: string): RedisSeed[] {
  const parts = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const seeds = (parts.length > 0 ? parts : ['']).map(parseRedisSeed);
  const cluster = seeds.length > 1 || seeds.some((s) => s.cluster);
  const other = seeds.find((s) => s.db !== 0);
  if (cluster && other) {
    throw new RedisDatabaseError(`must not name database ${other.db}: a Redis Cluster has only database 0`);
  }
  return seeds;
}
