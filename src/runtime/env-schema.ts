import { z } from 'zod';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from '../config/upstreams-schema';
import { RedisDatabaseError, parseRedisAddresses } from '../stores/redis-address';

/** Unset and empty are the same: `PORT=` means the default, as a shell's `${PORT:-8080}` would. */
const optional = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

const integer = (min: number, max: number, what: string) => {
  const message = `must be ${what}, a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message);
};

/** A URL whose scheme is one of `schemes` (e.g. `postgres`), as the client it goes to will read it. */
const url = (schemes: readonly string[]) => {
  const message = `must be a URL starting with ${schemes.map((x) => `${x}://`).join(' or ')}`;
  return z
    .string()
    .refine((v) => URL.canParse(v) && schemes.includes(new URL(v).protocol.slice(0, -1)), message);
};

/** One Redis address, or a cluster's seed addresses comma-separated, each as the Redis client reads it. */
const redisAddresses = () =>
  z.string().superRefine((v, ctx) => {
    try {
      parseRedisAddresses(v);
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message:
          err instanceof RedisDatabaseError
            ? err.reason
            : "must be redis://, rediss:// or redis+cluster:// addresses (a cluster's seeds comma-separated)",
      });
    }
  });

/** The environment variables of DESIGN §5 (and the upstream and cluster ones), read once at start. */
export const envSchema = z
  .object({
    PORT: optional(integer(0, 65535, 'a TCP port')).describe('Public API port (upstream mode: its port).'),
    ADMIN_PORT: optional(integer(0, 65535, 'a TCP port')).describe('Admin API, metrics, probes, JWKS.'),
    WORKERS: optional(integer(1, 256, 'a number of gateway processes')).describe('node:cluster workers.'),
    WORKER_LIVENESS_TIMEOUT_MS: optional(integer(1000, 600_000, 'milliseconds'))
      .transform((v) => v ?? 20_000)
      .describe(
        'WORKERS=N: a worker that has not answered the primary for this long is killed and replaced.',
      ),
    LOG_LEVEL: optional(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']))
      .transform((v) => v ?? 'info')
      .describe('pino level.'),
    CONFIG_DIR: optional(z.string())
      .transform((v) => v ?? './config')
      .describe('YAML config directory.'),
    DATA_DIR: optional(z.string())
      .transform((v) => v ?? './var')
      .describe('PGlite data directory.'),
    DATABASE_URL: optional(url(['postgres', 'postgresql'])).describe(
      'PostgreSQL; unset: PGlite in DATA_DIR.',
    ),
    DATABASE_POOL_SIZE: optional(integer(1, 1000, 'a number of connections'))
      .transform((v) => v ?? 10)
      .describe(
        "PostgreSQL: the most connections this process holds (each worker's own with WORKERS=N); size the server's max_connections for all of them.",
      ),
    REDIS_URL: optional(redisAddresses()).describe('Redis or a cluster; unset: in-process counters.'),
    ADMIN_JWT_SECRET: optional(z.string()).describe('HS256 secret for admin tokens.'),
    ADMIN_JWKS_URL: optional(url(['https', 'http'])).describe('JWKS to verify admin tokens with instead.'),
    IDENTITY_JWKS_URL: optional(url(['https', 'http'])).describe(
      "Upstream mode: the gateway's JWKS; dataset requests then need its identity assertion.",
    ),
    IDENTITY_ISSUER: optional(z.string().min(1))
      .transform((v) => v ?? 'lookup-gateway')
      .describe("Upstream mode: the assertion's issuer, as gateway.yaml identity.issuer."),
    IDENTITY_AUDIENCE: optional(z.string().min(1))
      .transform((v) => v ?? 'lookup-upstream')
      .describe("Upstream mode: gateway.yaml identity.audience; this upstream accepts '<it>/<its name>'."),
    LOOKUP_COUNTERS_REACHED: optional(oneOf(['1']))
      .transform((v) => v === '1')
      .describe(
        "Set by the WORKERS=N primary on a worker it starts after one reported the shared counters answering: that worker's readiness does not wait for them again.",
      ),
    QUERY_TIMEOUT_MS: optional(integer(50, 120_000, 'milliseconds'))
      .transform((v) => v ?? DEFAULT_UPSTREAM_TIMEOUT_MS)
      .describe(
        "Upstream mode: the longest one database query runs. Set it to the gateway's timeout_ms for this upstream: a query the gateway no longer waits for would hold a pool connection.",
      ),
    SEED_SAMPLE_DATA: optional(oneOf(['true', 'false']))
      .transform((v) => v !== 'false')
      .describe(
        'Seed the built-in upstreams (the product or upstream mode) with sample data on first start.',
      ),
  })
  .refine((e) => e.PORT === undefined || e.PORT === 0 || e.PORT !== e.ADMIN_PORT, {
    message: 'must differ from PORT: the admin API is never served on the public port',
    path: ['ADMIN_PORT'],
  });

export type Env = z.infer<typeof envSchema>;

/** The environment, or the first variable that is wrong and why. */
export function readEnv(
  env: NodeJS.ProcessEnv,
): { ok: true; env: Env } | { ok: false; variable: string; reason: string } {
  const r = envSchema.safeParse(env);
  if (r.success) return { ok: true, env: r.data };
  const issue = r.error.issues[0]!;
  return { ok: false, variable: String(issue.path[0]), reason: issue.message };
}

/**
 * What the environment lacks for the product (not an upstream process): outside the embedded
 * default (DATABASE_URL or REDIS_URL set), admin tokens need a secret or a JWKS; no secret is
 * generated there. Said with the other bad variables, before anything is opened or migrated.
 */
export function productEnvProblem(env: Env): { variable: string; reason: string } | undefined {
  if (env.ADMIN_JWT_SECRET || env.ADMIN_JWKS_URL || (!env.DATABASE_URL && !env.REDIS_URL)) return undefined;
  return {
    variable: 'ADMIN_JWT_SECRET',
    reason: `must be set, or ADMIN_JWKS_URL, with ${env.DATABASE_URL ? 'DATABASE_URL' : 'REDIS_URL'} set (outside the embedded default no admin secret is generated)`,
  };
}
