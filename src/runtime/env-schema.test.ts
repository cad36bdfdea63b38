import { productEnvProblem, readEnv } from './env-schema';

describe('the environment, read once at start', () => {
  it('gives the defaults of DESIGN §5 for what is unset or empty', () => {
    for (const env of [{}, { PORT: '', LOG_LEVEL: '', CONFIG_DIR: '' }]) {
      expect(readEnv(env)).toEqual({
        ok: true,
        env: {
          LOG_LEVEL: 'info',
          CONFIG_DIR: './config',
          DATA_DIR: './var',
          DATABASE_POOL_SIZE: 10,
          SEED_SAMPLE_DATA: true,
          LOOKUP_COUNTERS_REACHED: false,
          IDENTITY_ISSUER: 'lookup-gateway',
          IDENTITY_AUDIENCE: 'lookup-upstream',
          WORKER_LIVENESS_TIMEOUT_MS: 20_000,
          QUERY_TIMEOUT_MS: 5000,
        },
      });
    }
  });

  it('reads ports and worker counts as numbers, and leaves other variables alone', () => {
    const r = readEnv({ PORT: '8081', ADMIN_PORT: '0', WORKERS: '2', LOG_LEVEL: 'warn', HOME: '/x' });
    expect(r).toMatchObject({ ok: true, env: { PORT: 8081, ADMIN_PORT: 0, WORKERS: 2, LOG_LEVEL: 'warn' } });
    expect(readEnv({ WORKER_LIVENESS_TIMEOUT_MS: '2000' })).toMatchObject({
      env: { WORKER_LIVENESS_TIMEOUT_MS: 2000 },
    });
    expect(readEnv({ SEED_SAMPLE_DATA: 'false' })).toMatchObject({ env: { SEED_SAMPLE_DATA: false } });
    expect(readEnv({ DATABASE_POOL_SIZE: '3' })).toMatchObject({ env: { DATABASE_POOL_SIZE: 3 } });
    const urls = {
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/test',
      ADMIN_JWKS_URL: 'https://auth.example.vn/.well-known/jwks.json',
    };
    expect(readEnv(urls)).toMatchObject({ ok: true, env: urls });
    expect(readEnv({ DATABASE_URL: 'postgres://u@db/x' })).toMatchObject({ ok: true });
    for (const REDIS_URL of [
      'redis://127.0.0.1:6379/9',
      'rediss://:secret@cache.example.vn:6380',
      'redis+cluster://cfg.example.vn:6379',
      'redis://10.0.0.1:6379, redis://10.0.0.2:6379',
    ])
      expect(readEnv({ REDIS_URL })).toMatchObject({ ok: true, env: { REDIS_URL } });
  });
});

describe('the environment: errors', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT', 'must be a TCP port, a whole number from 0 to 65535'],
    [{ ADMIN_PORT: '70000' }, 'ADMIN_PORT', 'must be a TCP port, a whole number from 0 to 65535'],
    [{ PORT: '-1' }, 'PORT', 'must be a TCP port, a whole number from 0 to 65535'],
    [{ WORKERS: '0' }, 'WORKERS', 'must be a number of gateway processes, a whole number from 1 to 256'],
    [
      { WORKER_LIVENESS_TIMEOUT_MS: '999' },
      'WORKER_LIVENESS_TIMEOUT_MS',
      'must be milliseconds, a whole number from 1000 to 600000',
    ],
    ...['49', '120001', '5s'].map((QUERY_TIMEOUT_MS): [Record<string, string>, string, string] => [
      { QUERY_TIMEOUT_MS },
      'QUERY_TIMEOUT_MS',
      'must be milliseconds, a whole number from 50 to 120000',
    ]),
    [{ LOG_LEVEL: 'bogus' }, 'LOG_LEVEL', 'must be one of fatal, error, warn, info, debug, trace, silent'],
    [{ SEED_SAMPLE_DATA: 'no' }, 'SEED_SAMPLE_DATA', 'must be one of true, false'],
    ...['0', '1001', '2.5', 'ten'].map((DATABASE_POOL_SIZE): [Record<string, string>, string, string] => [
      { DATABASE_POOL_SIZE },
      'DATABASE_POOL_SIZE',
      'must be a number of connections, a whole number from 1 to 1000',
    ]),
    [{ DATABASE_URL: 'garbage' }, 'DATABASE_URL', 'must be a URL starting with postgres:// or postgresql://'],
    [
      { DATABASE_URL: 'mysql://x@127.0.0.1/db' },
      'DATABASE_URL',
      'must be a URL starting with postgres:// or postgresql://',
    ],
    [{ ADMIN_JWKS_URL: 'not-a-url' }, 'ADMIN_JWKS_URL', 'must be a URL starting with https:// or http://'],
    [
      { PORT: '8080', ADMIN_PORT: '8080' },
      'ADMIN_PORT',
      'must differ from PORT: the admin API is never served on the public port',
    ],
    ...['http://x', 'localhost:6379', 'redis://10.0.0.1:6379,garbage'].map(
      (REDIS_URL): [Record<string, string>, string, string] => [
        { REDIS_URL },
        'REDIS_URL',
        "must be redis://, rediss:// or redis+cluster:// addresses (a cluster's seeds comma-separated)",
      ],
    ),
    [
      { REDIS_URL: 'redis://127.0.0.1:6379/abc' },
      'REDIS_URL',
      'must name a database by its index (redis://host:6379/0), not "abc"',
    ],
    [
      { REDIS_URL: 'redis+cluster://cfg.example.vn:6379/2' },
      'REDIS_URL',
      'must not name database 2: a Redis Cluster has only database 0',
    ],
    [
      { REDIS_URL: 'redis://10.0.0.1:6379, redis://10.0.0.2:6379/1' },
      'REDIS_URL',
      'must not name database 1: a Redis Cluster has only database 0',
    ],
  ])('names the variable and what it must be for %j', (env, variable, reason) => {
    expect(readEnv(env)).toEqual({ ok: false, variable, reason });
  });
});

describe('the environment the product needs beyond each variable', () => {
  const env = (vars: Record<string, string>) => {
    const r = readEnv(vars);
    if (!r.ok) throw new Error(r.reason);
    return r.env;
  };

  it('asks for admin auth once DATABASE_URL or REDIS_URL is set, and not in the embedded default', () => {
    expect(productEnvProblem(env({}))).toBeUndefined();
    expect(productEnvProblem(env({ DATABASE_URL: 'postgres://h/db' }))?.variable).toBe('ADMIN_JWT_SECRET');
    expect(productEnvProblem(env({ REDIS_URL: 'redis://h:6379' }))?.reason).toContain('with REDIS_URL set');
    expect(
      productEnvProblem(env({ DATABASE_URL: 'postgres://h/db', ADMIN_JWT_SECRET: 's' })),
    ).toBeUndefined();
    expect(
      productEnvProblem(env({ REDIS_URL: 'redis://h:6379', ADMIN_JWKS_URL: 'https://id.example/jwks' })),
    ).toBeUndefined();
  });
});
