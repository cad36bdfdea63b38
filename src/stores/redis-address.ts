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
    throw new Error(`REDIS_URL: "${raw}" is not a URL (redis://host:port)`);
  }
  const scheme = SCHEMES[u.protocol];
  if (!scheme || !u.hostname) {
    throw new Error(
      `REDIS_URL: "${u.protocol}//${u.host}" is not a redis://, rediss:// or redis+cluster:// address`,
    );
  }
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : 6379,
    username: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    ...scheme,
  };
}
